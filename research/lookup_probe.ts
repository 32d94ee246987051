// `deno run -A research/lookup_probe.ts runs/NAME [--policy sft|mempo|grpo|ppo] [--split test|valid|train]`:
// how a run's policy does each step of the teacher's state memory. On the scripted teacher's turns of every set of the
// split (memory context, no drops, the evaluation's questions), per set: the teacher-forced accuracy of each step of the
// memory's per-turn operation (stepAccuracy, as diagnostics.md's step table); whole turns generated greedily from the
// teacher's context, and where the episodes leave the teacher's path (teacherPath); the first turn's extraction of the
// open objectives by place in the list (extractionByPlace); and what it predicts at each answer the memory carries or
// appends (carryErrors: the right one, the list ended early, another answer, ...; and how often the word it ranks first
// once `|` is ruled out is right). The probes of the retired formats (the marker lookups and memory slots of the slots
// memory, the think lookups of the chain memory on lengthened questions) left it; commit dbd8926 has them
// (docs/design.md#retired). Then, pooled over the sets: the reads (the appended answer, the memory decision, the next
// hop's entity) by the relation asked; with --baseline RUN, the difference of the read against that run's policy at
// the same positions. Its lines on documents of two facts (by the relation and by the fact's place) left with that
// corpus; commit 5dc89be has them.
import { readRunConfig } from "../lib/config/run_config.ts";
import { UsageError } from "../lib/errors.ts";
import { newcombePairedDifference, wilsonInterval } from "../lib/eval/proportion_interval.ts";
import type { LmSequence } from "../lib/train/collate.ts";
import { DATA_SPLITS, type DataSplit } from "../lib/data/build.ts";
import { teacherMemory } from "../lib/config/experiment.ts";
import { runTask } from "../lib/cli/task.ts";
import { openRun, POLICY_FLAG } from "../lib/pipeline/open_run.ts";
import { probeEpisodes } from "./diagnostics/copy_diagnostic.ts";
import { stepAccuracy } from "./diagnostics/step_diagnostic.ts";
import { AFTER_KINDS, afterKind, pathCells, teacherPath, TURN_PARTS } from "./diagnostics/teacher_path.ts";
import { extractionByPlace } from "./diagnostics/extraction.ts";
import type { Hits } from "./diagnostics/teacher_forced.ts";
import { corpusNames } from "../lib/env/world.ts";
import { CARRY_OUTCOMES, type CarryRecord, carryRecords } from "./diagnostics/carry_errors.ts";

/** A share of hits in whole percent, or "–" when none was scored. */
const pct = (h: Hits) => pathPct(h.correct, h.total);
/** A share in whole percent, or "–" of none. */
const pathPct = (n: number, d: number) => d ? `${(100 * n / d).toFixed(0)}%` : "–";

/** Where each step's records are, in the printed lines. */
const WHERE = {
  "answers carried": "a carried answer",
  "answer appended": "the appended answer",
  "memory decision": "the memory decision",
  "next hop read": "the next hop's entity",
} as const;

const TASK = {
  name: "deno run -A research/lookup_probe.ts",
  summary: "how a run's policy does each step of the teacher's state memory (teacher-forced, memory context): the " +
    "steps of the per-turn operation, whole turns off the teacher's path, the first turn's extraction by place, " +
    "and what it writes instead of a carried or an appended answer.",
  positionals: [{ name: "RUN", help: "a run directory (runs/NAME)" }],
  flags: {
    policy: POLICY_FLAG,
    split: {
      type: "string",
      value: "SPLIT",
      choices: DATA_SPLITS,
      default: "test",
      help: "the sets probed: test, valid or train (as deno task diagnose)",
    },
    baseline: {
      type: "string",
      value: "RUN",
      help:
        "a run of the same world whose policy (--baseline-policy) is probed on the same positions: the difference " +
        "of the read's share right, pooled over the sets, with its 95 % interval (Newcombe's, paired by position)",
    },
    "baseline-policy": { ...POLICY_FLAG, help: "the baseline's checkpoint" },
  },
} as const;

await runTask(TASK, async ({ flags, positionals }) => {
  const dir = positionals[0]!;
  const config = await readRunConfig(dir);
  const { data, load } = await openRun(dir, config, { split: flags.split as DataSplit });
  const names = new Set(corpusNames(data.corpus));
  const model = await load(flags.policy);
  const memory = teacherMemory(config);
  const probe = {
    seed: config.seed,
    maxTurnTokens: config.eval.maxTurnTokens,
    maxPositions: model.config.maxPositions,
  };
  console.log(
    `${dir} (${flags.policy}, ${flags.split} sets): teacher-forced accuracy of each step of the state memory, % right (tokens)`,
  );
  // every set's probe sequences and appended answers, for the pooled read and the baseline
  const probed: LmSequence[] = [];
  const read: CarryRecord[] = [];
  for (const [k, set] of [...data.test.entries()].sort((a, b) => a[0] - b[0])) {
    const { sequences, episodes } = await probeEpisodes(data, set.slice(0, config.eval.questions), {
      ...probe,
      memory,
    });
    probed.push(...sequences);
    const cells = await stepAccuracy(model, data.tokenizer, sequences);
    console.log(
      `${k} objectives, steps  ` +
        cells.map((c) => `${c.step} ${(100 * c.correct / c.total).toFixed(0)}% (${c.total})`).join("  "),
    );
    // whole turns: where the greedy policy leaves the teacher's path, turn by turn and by part
    const path = await teacherPath(model, data.tokenizer, episodes, { maxTurnTokens: probe.maxTurnTokens });
    console.log(
      `${k} objectives, on the teacher's path ${pathCells(path)[0]}; by turn: exact, then the episodes leaving ` +
        `the path there (open / answers / action)  ` +
        path.byTurn.map((t) => `${t.turn}: ${pathPct(t.exact, t.total)} ${TURN_PARTS.map((p) => t.first[p]).join("/")}`)
          .join("  "),
    );
    // the word the first differing word follows, where the episodes leave the path in the open list
    const open = path.leaves.filter((l) => l.part === "open");
    const kinds = AFTER_KINDS.map((kind) => `${kind} ${open.filter((l) => afterKind(l, names) === kind).length}`);
    console.log(`${k} objectives, leaving in the open list (${open.length}), after  ${kinds.join("  ")}`);
    // the first turn's extraction of the open list, by place in the list: the subject and its relations
    console.log(
      `${k} objectives, first turn's open list by place (subject / relations)  ` +
        (await extractionByPlace(model, data.tokenizer, sequences))
          .map((r) => `${r.place}: ${pct(r.subject)} / ${pct(r.relations)}`).join("  "),
    );
    // what it writes instead of a carried answer, and of the one appended
    const carryAll = await carryRecords(model, data.tokenizer, sequences);
    read.push(...carryAll.filter((r) => r.step !== "answers carried"));
    for (const step of ["answers carried", "answer appended", "memory decision", "next hop read"] as const) {
      const records = carryAll.filter((r) => r.step === step);
      if (records.length === 0) continue;
      const where = WHERE[step];
      const share = (o: string) => (100 * records.filter((r) => r.outcome === o).length / records.length).toFixed(0);
      console.log(
        `${k} objectives, at ${where} (${records.length})  ${
          CARRY_OUTCOMES.map((o) => `${o} ${share(o)}%`).join("  ")
        }`,
      );
      const cells = (key: (r: CarryRecord) => number | string) =>
        rightCells(records, key).map((c) => `${c.value}: ${c.right}/${c.of}`).join("  ");
      // the length of the list before it (the list copied, or the one the answer extends)
      console.log(`${k} objectives, at ${where}, right by the list's length  ${cells((r) => r.listLength)}`);
      // the reads by the relation asked (a copy has none)
      if (step !== "answers carried") {
        console.log(`${k} objectives, at ${where}, right by the relation  ${cells((r) => r.relation)}`);
      }
      // the word it ranks first once `|` is ruled out
      const unlessEnded = records.filter((r) => r.rightWithoutEnd).length;
      console.log(
        `${k} objectives, at ${where}, right once | is ruled out  ${(100 * unlessEnded / records.length).toFixed(0)}%`,
      );
    }
  }
  model.dispose();
  // the reads pooled over the sets, by the relation asked
  const appended = read.filter((r) => r.step === "answer appended");
  const reads = [
    ["the read", appended],
    ["the memory decision", read.filter((r) => r.step === "memory decision")],
    ["the next hop's read", read.filter((r) => r.step === "next hop read")],
  ] as const;
  for (const [what, records] of reads) {
    console.log(
      `all sets, ${what} by the relation  ${rightCells(records, (r) => r.relation).map(shareCell).join("  ")}`,
    );
  }
  if (flags.baseline === undefined) return;
  const baseConfig = await readRunConfig(flags.baseline);
  const base = await openRun(flags.baseline, baseConfig, { split: flags.split as DataSplit });
  if (base.data.tokenizer.tokens.join(" ") !== data.tokenizer.tokens.join(" ")) {
    throw new UsageError(
      `Invalid --baseline: its tokenizer differs from ${dir}'s (another world), current value is ${flags.baseline}`,
    );
  }
  const baseModel = await base.load(flags["baseline-policy"]);
  try {
    // the same positions under both policies: paired outcomes of the read
    const baseRead = (await carryRecords(baseModel, data.tokenizer, probed)).filter((r) =>
      r.step === "answer appended"
    );
    const cells = [0, 0, 0, 0]; // right under both, ours only, the baseline's only, neither
    appended.forEach((r, i) => {
      const [x, y] = [r.outcome === "right", baseRead[i]!.outcome === "right"];
      cells[x && y ? 0 : x ? 1 : y ? 2 : 3]! += 1;
    });
    const [both, ours, theirs, neither] = cells as [number, number, number, number];
    const of = both + ours + theirs + neither;
    if (of === 0) return console.log("all sets, no read");
    const d = newcombePairedDifference(both, ours, theirs, neither);
    console.log(
      `all sets, the read: ${dir} (${flags.policy}) ` +
        `${shareCell({ value: "read", right: both + ours, of })}, ${flags.baseline} (${flags["baseline-policy"]}) ` +
        `${shareCell({ value: "read", right: both + theirs, of })}; difference ${signed(d.estimate)} ` +
        `[${signed(d.low)}, ${signed(d.high)}] (95 %, Newcombe, paired by position)`,
    );
  } finally {
    baseModel.dispose();
  }
});

/** A count right of `of` at one value of a key. */
interface RightCell {
  value: number | string;
  right: number;
  of: number;
}

/** The records right and counted per value of `key`, ascending. */
function rightCells(records: readonly CarryRecord[], key: (r: CarryRecord) => number | string): RightCell[] {
  return [...new Set(records.map(key))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).map((value) => {
    const of = records.filter((r) => key(r) === value);
    return { value, right: of.filter((r) => r.outcome === "right").length, of: of.length };
  });
}

/** `value: right/of (share [low, high])`, Wilson's 95 % interval. */
function shareCell(c: RightCell): string {
  const w = wilsonInterval(c.right, c.of);
  return `${c.value}: ${c.right}/${c.of} (${w.estimate.toFixed(2)} [${w.low.toFixed(2)}, ${w.high.toFixed(2)}])`;
}

/** A difference with its sign, two decimals. */
function signed(x: number): string {
  return `${x >= 0 ? "+" : "−"}${Math.abs(x).toFixed(2)}`;
}
