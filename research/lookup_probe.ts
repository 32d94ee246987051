// `deno run -A research/lookup_probe.ts runs/NAME [--policy sft|mempo|grpo]`:
// how a run's policy finds an objective's subject in the question. On the scripted teacher's turns of every test set
// (memory context, no drops, the evaluation's questions), the teacher-forced greedy accuracy of the subject its think
// names after each objective marker (`q2 drelul …`: the word after `q2` in the question), with the question's parts in
// marker order and reversed (`q2 … ; q1 …`). A lookup by marker scores the same both ways; a lookup by place falls.
// Then, in marker order, the names it writes into <mem>: in slots carried from the previous memory and in the new one.
// A run whose teacher keeps the state memory (sft.teacherMemory "state-relations" or "state": no markers to look up) gets, per test set, the
// accuracy of each step of the memory's per-turn operation instead (stepAccuracy, as eval.md's step table; with the open
// objectives in the memory, the first turn's extraction of them by place in the list, extractionByPlace), and what it
// predicts at each answer the memory carries or appends (carryErrors: the right one, the list ended early, another
// answer, ...; and how often the word it ranks first once `|` is ruled out is right), and, with a subject index, each
// lookup of the think (thinkRecords: the next subject, its relations, the next hop, `answer`) and what it names
// instead of the next subject (`answer`, an earlier or a later subject of the index), and how often it is right by the
// place in the index of the subject looked up; then the same on the 2-objective questions lengthened by six other
// objectives' text, or by the same words as filler (lengthenQuestion): the work the same, the question as long as an
// 8-objective one.
import { readRunConfig } from "../lib/config/run_config.ts";
import { ALGORITHMS, teacherMemory } from "../lib/config/experiment.ts";
import { isStateMemory, stateLayout } from "../lib/env/teacher.ts";
import { runTask } from "../lib/cli/task.ts";
import { openRun } from "../lib/pipeline/open_run.ts";
import {
  lookupAccuracy,
  memorySlotAccuracy,
  probeEpisodes,
  probeTurns,
  reverseObjectives,
} from "./diagnostics/copy_diagnostic.ts";
import { stepAccuracy } from "./diagnostics/step_diagnostic.ts";
import { AFTER_KINDS, afterKind, pathCells, teacherPath, TURN_PARTS } from "./diagnostics/teacher_path.ts";
import { extractionByPlace } from "./diagnostics/extraction.ts";
import type { Hits } from "./diagnostics/teacher_forced.ts";
import { CARRY_OUTCOMES, carryRecords } from "./diagnostics/carry_errors.ts";
import { SUBJECT_OUTCOMES, THINK_KINDS, type ThinkRecord, thinkRecords } from "./diagnostics/think_lookups.ts";
import { LENGTHENINGS, lengthenQuestion } from "../lib/env/longer_questions.ts";

/** A share of hits in whole percent, or "–" when none was scored. */
const pct = (h: Hits) => pathPct(h.correct, h.total);
/** A share in whole percent, or "–" of none. */
const pathPct = (n: number, d: number) => d ? `${(100 * n / d).toFixed(0)}%` : "–";

const TASK = {
  name: "deno run -A research/lookup_probe.ts",
  summary: "how a run's policy finds an objective's subject in the question (teacher-forced, memory context), " +
    "with the question's parts in marker order and reversed, and the names it writes into <mem>.",
  positionals: [{ name: "RUN", help: "a run directory (runs/NAME)" }],
  flags: {
    policy: {
      type: "string",
      choices: ["sft", ...ALGORITHMS],
      default: "sft",
      value: "NAME",
      help: "which checkpoint",
    },
  },
} as const;

await runTask(TASK, async ({ flags, positionals }) => {
  const dir = positionals[0]!;
  const config = await readRunConfig(dir);
  const { data, load } = await openRun(dir, config);
  const names = new Set(data.corpus.map((d) => d.id));
  const model = await load(flags.policy);
  const memory = teacherMemory(config);
  const probe = {
    seed: config.seed,
    maxTurnTokens: config.eval.maxTurnTokens,
    maxPositions: model.config.maxPositions,
  };
  if (isStateMemory(memory)) {
    console.log(`${dir} (${flags.policy}): teacher-forced accuracy of each step of the state memory, % right (tokens)`);
    let hasThink = false;
    for (const [k, set] of [...data.test.entries()].sort((a, b) => a[0] - b[0])) {
      const { sequences, episodes } = await probeEpisodes(data, set.slice(0, config.eval.questions), {
        ...probe,
        memory,
      });
      const cells = await stepAccuracy(model, data.tokenizer, sequences, stateLayout(memory));
      console.log(
        `${k} objectives, steps  ` +
          cells.map((c) => `${c.step} ${(100 * c.correct / c.total).toFixed(0)}% (${c.total})`).join("  "),
      );
      // whole turns: where the greedy policy leaves the teacher's path, turn by turn and by part
      const path = await teacherPath(model, data.tokenizer, episodes, {
        maxTurnTokens: probe.maxTurnTokens,
        layout: stateLayout(memory),
      });
      console.log(
        `${k} objectives, on the teacher's path ${pathCells(path)[0]}; by turn: exact, then the episodes leaving ` +
          `the path there (open / answers / action)  ` +
          path.byTurn.map((t) =>
            `${t.turn}: ${pathPct(t.exact, t.total)} ${TURN_PARTS.map((p) => t.first[p]).join("/")}`
          )
            .join("  "),
      );
      // the word the first differing word follows, where the episodes leave the path in the open list
      const open = path.leaves.filter((l) => l.part === "open");
      const kinds = AFTER_KINDS.map((kind) => `${kind} ${open.filter((l) => afterKind(l, names) === kind).length}`);
      console.log(`${k} objectives, leaving in the open list (${open.length}), after  ${kinds.join("  ")}`);
      // the first turn's extraction of the open list, by place in the list: the subject and its relations
      if (!stateLayout(memory).chain) {
        console.log(
          `${k} objectives, first turn's open list by place (subject / relations)  ` +
            (await extractionByPlace(model, data.tokenizer, sequences))
              .map((r) => `${r.place}: ${pct(r.subject)} / ${pct(r.relations)}`).join("  "),
        );
      }
      // what it writes instead of a carried answer, and of the one appended
      const carryAll = await carryRecords(model, data.tokenizer, sequences, stateLayout(memory));
      for (const step of ["answers carried", "answer appended"] as const) {
        const records = carryAll.filter((r) => r.step === step);
        if (records.length === 0) continue;
        const where = step === "answers carried" ? "a carried answer" : "the appended answer";
        const share = (o: string) => (100 * records.filter((r) => r.outcome === o).length / records.length).toFixed(0);
        console.log(
          `${k} objectives, at ${where} (${records.length})  ${
            CARRY_OUTCOMES.map((o) => `${o} ${share(o)}%`).join("  ")
          }`,
        );
        // right per length of the list before it (the list copied, or the one the answer extends)
        const lengths = [...new Set(records.map((r) => r.listLength))].sort((a, b) => a - b);
        const right = (n: number) => {
          const of = records.filter((r) => r.listLength === n);
          return `${n}: ${of.filter((r) => r.outcome === "right").length}/${of.length}`;
        };
        console.log(`${k} objectives, at ${where}, right by the list's length  ${lengths.map(right).join("  ")}`);
        // the word it ranks first once `|` is ruled out
        const unlessEnded = records.filter((r) => r.rightWithoutEnd).length;
        console.log(
          `${k} objectives, at ${where}, right once | is ruled out  ${
            (100 * unlessEnded / records.length).toFixed(0)
          }%`,
        );
      }
      // the think's lookups (chain memory, questions with a subject index)
      const thinks = await thinkRecords(model, data.tokenizer, sequences);
      if (thinks.length > 0) {
        hasThink = true;
        console.log(`${k} objectives, think  ${thinkCells(thinks)}`);
        for (const kind of ["next subject", "answer"] as const) {
          const of = thinks.filter((r) => r.kind === kind);
          if (of.length === 0) continue;
          const share = (o: string) => (100 * of.filter((r) => r.outcome === o).length / of.length).toFixed(0);
          console.log(
            `${k} objectives, think at the ${kind} (${of.length})  ${
              SUBJECT_OUTCOMES.map((o) => `${o} ${share(o)}%`).join("  ")
            }`,
          );
        }
        // right per place in the index of the word looked up (`answer`: one past the last subject)
        const lookups = thinks.filter((r) => r.slot !== undefined);
        const slots = [...new Set(lookups.map((r) => r.slot!))].sort((a, b) => a - b);
        const right = (n: number) => {
          const of = lookups.filter((r) => r.slot === n);
          return `${n}: ${of.filter((r) => r.right).length}/${of.length}`;
        };
        console.log(
          `${k} objectives, think, the next subject or answer right by its place  ${slots.map(right).join("  ")}`,
        );
      }
    }
    // the think's lookups on the 2-objective questions made as long as 8-objective ones, the work the same
    const two = data.test.get(2)?.slice(0, config.eval.questions) ?? [];
    const donors = data.test.get(Math.max(...data.test.keys())) ?? [];
    const lookups = async (records: typeof two) =>
      await thinkRecords(model, data.tokenizer, await probeTurns(data, records, { ...probe, memory }));
    if (hasThink && two.length > 0 && donors.length > 0) {
      for (const how of ["none", ...LENGTHENINGS] as const) {
        const records = how === "none" ? two : two.map((r, i) => ({
          ...r,
          question: lengthenQuestion(
            r.question,
            (r.subQuestions ?? []).map((q) => q.subject),
            (donors[i % donors.length]!.subQuestions ?? []).slice(0, 6),
            how,
          ),
        }));
        const cells = thinkCells(await lookups(records));
        const words = records.reduce((a, r) => a + r.question.split(" ").length, 0) / records.length;
        const label = how === "none" ? "as they are" : `+ 6 objectives' words as ${how}`;
        console.log(`2 objectives, ${label} (question ${words.toFixed(0)} words), think  ${cells}`);
      }
    }
    model.dispose();
    return;
  }
  console.log(`${dir} (${flags.policy}): teacher-forced subject lookups by objective marker, % right (lookups)`);
  for (const [k, set] of [...data.test.entries()].sort((a, b) => a[0] - b[0])) {
    const records = set.slice(0, config.eval.questions);
    for (const order of ["marker", "reversed"] as const) {
      const sequences = await probeTurns(
        data,
        order === "marker" ? records : records.map((r) => ({ ...r, question: reverseObjectives(r.question) })),
        { ...probe, memory },
      );
      const cells = await lookupAccuracy(model, data.tokenizer, sequences);
      const correct = cells.reduce((n, c) => n + c.correct, 0);
      const total = cells.reduce((n, c) => n + c.total, 0);
      console.log(
        `${k} objectives, ${order.padEnd(8)}  all ${(100 * correct / Math.max(1, total)).toFixed(0)}%  ` +
          cells.map((c) => `${c.marker} ${(100 * c.correct / c.total).toFixed(0)}% (${c.total})`).join("  "),
      );
      if (order === "marker") {
        const mem = await memorySlotAccuracy(model, data.tokenizer, names, sequences);
        const counted = (h: Hits) => `${pct(h)} (${h.total})`;
        console.log(
          `${k} objectives, <mem> names: carried slots ${counted(mem.carried)}, new slot ${counted(mem.new)}`,
        );
      }
    }
  }
  model.dispose();
});

/** Each think lookup's accuracy: `kind x% (n)`, for the kinds present. */
function thinkCells(thinks: readonly ThinkRecord[]): string {
  return THINK_KINDS.map((kind) => thinks.filter((r) => r.kind === kind))
    .filter((of) => of.length > 0)
    .map((of) => `${of[0]!.kind} ${(100 * of.filter((r) => r.right).length / of.length).toFixed(0)}% (${of.length})`)
    .join("  ");
}
