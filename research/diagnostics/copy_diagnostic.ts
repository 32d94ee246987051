/**
 * Where does the policy go wrong? Teacher-forced next-token accuracy on the
 * scripted teacher's turns, split by the tag the token is in (`<mem>`,
 * `<think>`, `<search>`, `<answer>`) and by whether it is an entity name
 * (which has to be copied from the question, a document or memory) or any
 * other word (format, relation words, numbers: learnable by heart).
 *
 * @module
 */
import { corpusNames } from "../../lib/env/world.ts";
import type { Tokenizer } from "../../lib/text/tokenizer.ts";
import type { Model } from "../../lib/model/params.ts";
import type { LoadedData } from "../../lib/data/build.ts";
import type { QaRecord } from "../../lib/data/dataset.ts";
import type { LmSequence } from "../../lib/train/collate.ts";
import { type Hits, probeHits, teacherForcedHits } from "./teacher_forced.ts";
import { STEP_KINDS, type StepAccuracy, stepCells, stepPositions } from "./step_diagnostic.ts";
import type { MemoryFormat } from "../../lib/env/teacher.ts";
import { teacherDemonstrations } from "../../lib/train/demos.ts";
import type { Episode } from "../../lib/env/rollout.ts";
import { PATH_COLUMNS, pathCells, type TeacherPath, teacherPath } from "./teacher_path.ts";
import type { AgentSpec } from "../../lib/eval/evaluate.ts";
import { markdownTable } from "../../lib/viz/table.ts";

/** Accuracy of one (tag, kind) cell. */
export interface CopyAccuracy {
  /** The enclosing tag (`mem`, `think`, `search`, `answer`, or `other`). */
  tag: string;
  /** `name` or `word`. */
  kind: "name" | "word";
  /** Tokens predicted right (greedy, teacher-forced). */
  correct: number;
  /** Tokens scored. */
  total: number;
}

const TAGS = ["mem", "think", "search", "answer"] as const;

/**
 * Labels each learned position (`lossMask = 1`) of a sequence with its tag
 * (the latest opening tag before it) and kind (`name` when the token is in
 * `names`).
 *
 * Source: this package (a probe in the spirit of Olsson et al. 2022's
 * per-token loss attribution).
 *
 * @param tokenizer The tokenizer.
 * @param names Entity names (the tokens that must be copied).
 * @param sequence A training sequence.
 * @returns For each learned position `i`, `[i, tag, kind]`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildTokenizer, encode } from "../../lib/text/tokenizer.ts";
 * import { labelPositions } from "./copy_diagnostic.ts";
 *
 * const tok = buildTokenizer(["zorbex kalo born"]);
 * const ids = encode(tok, "<mem> none </mem> <search> zorbex born </search>").ids;
 * const labels = labelPositions(tok, new Set(["zorbex"]), { tokens: ids, lossMask: ids.map((_, i) => (i >= 4 ? 1 : 0)) });
 * assert.deepEqual(labels, [[4, "search", "name"], [5, "search", "word"], [6, "search", "word"]]);
 * ```
 */
export function labelPositions(
  tokenizer: Tokenizer,
  names: ReadonlySet<string>,
  sequence: LmSequence,
): [number, string, "name" | "word"][] {
  const opening = new Map<number, string>(TAGS.map((t) => [tokenizer.special(`<${t}>`), t]));
  const out: [number, string, "name" | "word"][] = [];
  let tag = "other";
  for (let i = 0; i < sequence.tokens.length; i++) {
    if (i > 0 && sequence.lossMask[i] === 1) {
      out.push([i, tag, names.has(tokenizer.tokens[sequence.tokens[i]!] ?? "") ? "name" : "word"]);
    }
    tag = opening.get(sequence.tokens[i]!) ?? tag;
  }
  return out;
}

/**
 * Teacher-forced greedy accuracy per (tag, kind) over sequences: at each
 * learned position, is the model's arg-max next token the teacher's?
 *
 * ```text
 * acc(tag, kind) = #{ i : argmax p(· | x_<i) = x_i } / #{ i }     over learned positions of that tag and kind
 * ```
 *
 * Source: this package; see {@linkcode labelPositions}.
 *
 * @param model The policy.
 * @param tokenizer The tokenizer.
 * @param names Entity names.
 * @param sequences Teacher turn sequences (context, then the turn with lossMask 1).
 * @returns One entry per (tag, kind) present, tags in `mem, think, search, answer, other` order, names first.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildTokenizer, encode } from "../../lib/text/tokenizer.ts";
 * import { createModel } from "../../lib/model/params.ts";
 * import { modelPreset } from "../../lib/model/config.ts";
 * import { copyAccuracy } from "./copy_diagnostic.ts";
 *
 * const tok = buildTokenizer(["zorbex kalo born"]);
 * const model = createModel(modelPreset("tiny", tok.size), { seed: 1 });
 * const ids = encode(tok, "<search> zorbex born </search>").ids;
 * const [cell] = await copyAccuracy(model, tok, new Set(["zorbex"]), [{ tokens: ids, lossMask: [0, 1, 0, 0] }]);
 * assert.deepEqual({ ...cell, correct: 0 }, { tag: "search", kind: "name", correct: 0, total: 1 });
 * model.dispose();
 * ```
 */
export async function copyAccuracy(
  model: Model,
  tokenizer: Tokenizer,
  names: ReadonlySet<string>,
  sequences: readonly LmSequence[],
): Promise<CopyAccuracy[]> {
  const hits = await teacherForcedHits(
    model,
    tokenizer,
    sequences.map((s) => ({ s, keys: copyKeys(tokenizer, names, s) })),
  );
  return copyCells(hits);
}

/** {@linkcode labelPositions} as `teacherForcedHits` keys: `tag/kind`. */
function copyKeys(tokenizer: Tokenizer, names: ReadonlySet<string>, s: LmSequence): [number, string][] {
  return labelPositions(tokenizer, names, s).map(([i, tag, kind]) => [i, `${tag}/${kind}`]);
}

/** Hits keyed `tag/kind` as cells: tags in `mem, think, search, answer, other` order, names first. */
function copyCells(hits: ReadonlyMap<string, Hits>): CopyAccuracy[] {
  const order = [...TAGS, "other"];
  return [...hits.entries()].map(([key, h]) => {
    const [tag, kind] = key.split("/") as [string, "name" | "word"];
    return { tag, kind, ...h };
  }).sort((a, b) =>
    order.indexOf(a.tag) - order.indexOf(b.tag) || (a.kind === b.kind ? 0 : a.kind === "name" ? -1 : 1)
  );
}

/** The diagnostic of one test set: per agent, on the teacher's turns. */
export interface CopyDiagnostic {
  /** Objectives of the test set probed. */
  objectives: number;
  /** Agent name → cells. */
  agents: Record<string, CopyAccuracy[]>;
  /** Agent name → accuracy per step of the state memory's operation. */
  steps?: Record<string, StepAccuracy[]>;
  /** Agent name → where its greedy turns leave the teacher's path. */
  paths?: Record<string, TeacherPath>;
}

/**
 * The turns every probe here scores: the scripted teacher, without drops,
 * under the memory context policy, on the given questions (searching the
 * main world's corpus), as per-turn sequences.
 *
 * Source: this package (the probes of {@linkcode copyAccuracy}, `stepAccuracy`, `carryErrors`, `teacherPath`).
 *
 * @param data Loaded data (tokenizer, search).
 * @param records The questions.
 * @param options The teacher's seed, turn budget and context length.
 * @returns One sequence per teacher turn.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildData, loadData } from "../../lib/data/build.ts";
 * import { probeTurns } from "./copy_diagnostic.ts";
 *
 * const dir = await Deno.makeTempDir();
 * await buildData(dir, 1, { trainCount: 4, testCount: 2, testObjectives: [2], sizes: { distractors: 0 } });
 * const data = await loadData(dir);
 * const turns = await probeTurns(data, data.test.get(2)!, { seed: 0, maxTurnTokens: 64, maxPositions: 512 });
 * assert.ok(turns.length >= 2 * 3); // at least three turns (two searches and an answer) per question
 * ```
 */
export async function probeTurns(
  data: LoadedData,
  records: readonly QaRecord[],
  options: ProbeOptions,
): Promise<LmSequence[]> {
  return (await probeEpisodes(data, records, options)).sequences;
}

/** Options of {@linkcode probeTurns} and {@linkcode probeEpisodes}. */
export interface ProbeOptions {
  /** The teacher's seed (it drops nothing here). */
  seed: number;
  /** Tokens per turn at most. */
  maxTurnTokens: number;
  /** The model's positions. */
  maxPositions: number;
  /** The teacher's memory format. @default DEFAULT_TEACHER_MEMORY */
  memory?: MemoryFormat;
}

/**
 * {@linkcode probeTurns}' teacher episodes, with their per-turn sequences.
 *
 * Source: this package.
 *
 * @param data Loaded data (tokenizer, search).
 * @param records The questions.
 * @param options The teacher's seed, turn budget and context length.
 * @returns The episodes (one per question, in order) and one sequence per teacher turn.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildData, loadData } from "../../lib/data/build.ts";
 * import { probeEpisodes } from "./copy_diagnostic.ts";
 *
 * const dir = await Deno.makeTempDir();
 * await buildData(dir, 1, { trainCount: 4, testCount: 2, testObjectives: [2], sizes: { distractors: 0 } });
 * const data = await loadData(dir);
 * const { episodes, sequences } = await probeEpisodes(data, data.test.get(2)!, { seed: 0, maxTurnTokens: 64, maxPositions: 512 });
 * assert.equal(episodes.length, 2);
 * assert.ok(episodes.every((e) => e.turns.length >= 3 && e.reward === 1)); // two searches and an answer at least
 * assert.ok(sequences.length >= episodes.length);
 * ```
 */
export async function probeEpisodes(
  data: LoadedData,
  records: readonly QaRecord[],
  options: ProbeOptions,
): Promise<{ episodes: Episode[]; sequences: LmSequence[] }> {
  const { sequences, episodes } = await teacherDemonstrations(data, {
    count: records.length,
    dropProbability: 0,
    seed: options.seed,
    ...(options.memory ? { memory: options.memory } : {}),
    policies: ["memory"],
    maxPositions: options.maxPositions,
    maxTurnTokens: options.maxTurnTokens,
    records,
  });
  return { episodes, sequences };
}

/** Options of {@linkcode copyDiagnostics}. */
export interface CopyDiagnosticOptions {
  /** Questions of each test set (the first ones, as the evaluation's). */
  questions: number;
  /** Tokens per turn budget of the teacher's turns. */
  maxTurnTokens: number;
  /** Seed of the teacher (it drops nothing here; the seed only names the run). */
  seed: number;
  /** The teacher's memory format (the run's `sft.teacherMemory`). @default DEFAULT_TEACHER_MEMORY */
  memory?: MemoryFormat;
}

/**
 * {@linkcode copyAccuracy} of each model-backed agent (each name once) on the
 * scripted teacher's turns of every test set (memory context, no drops): how
 * copying holds up as the question, the memory and the number of answers grow
 * with the objectives.
 *
 * ```text
 * for k in test sets:  turns = teacher(test_k[:questions], memory context);  for each agent: copyAccuracy(model, turns)
 * ```
 *
 * Source: this package; see {@linkcode copyAccuracy}.
 *
 * @param agents The agents (scripted ones are skipped; a name seen twice is probed once).
 * @param data Loaded data (test sets, corpus names, search).
 * @param options Questions, turn budget, seed.
 * @returns One diagnostic per test set, by objectives ascending.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildData, loadData } from "../../lib/data/build.ts";
 * import { createModel } from "../../lib/model/params.ts";
 * import { modelPreset } from "../../lib/model/config.ts";
 * import { copyDiagnostics } from "./copy_diagnostic.ts";
 *
 * const dir = await Deno.makeTempDir();
 * await buildData(dir, 1, { trainCount: 4, testCount: 2, testObjectives: [2, 1], sizes: { distractors: 0 } });
 * const data = await loadData(dir);
 * const model = createModel(modelPreset("tiny", data.tokenizer.size), { seed: 1 });
 * const sets = await copyDiagnostics([{ name: "SFT", contextPolicy: "memory", model }], data, { questions: 2, maxTurnTokens: 64, seed: 0 });
 * assert.deepEqual(sets.map((d) => d.objectives), [1, 2]);
 * assert.ok(sets.every((d) => d.agents.SFT!.some((c) => c.tag === "search" && c.kind === "name" && c.total > 0)));
 * model.dispose();
 * ```
 */
export async function copyDiagnostics(
  agents: readonly AgentSpec[],
  data: LoadedData,
  options: CopyDiagnosticOptions,
): Promise<CopyDiagnostic[]> {
  const models = new Map<string, Model>();
  for (const a of agents) if ("model" in a && !models.has(a.name)) models.set(a.name, a.model);
  const names = new Set(corpusNames(data.corpus));
  const out: CopyDiagnostic[] = [];
  for (const [objectives, records] of [...data.test.entries()].sort((a, b) => a[0] - b[0])) {
    const diagnostic: CopyDiagnostic = { objectives, agents: {} };
    // the teacher's turns depend on the model only through its context length: one set per length
    const turns = new Map<number, { episodes: Episode[]; sequences: LmSequence[] }>();
    for (const [name, model] of models) {
      const { maxPositions } = model.config;
      if (!turns.has(maxPositions)) {
        turns.set(
          maxPositions,
          await probeEpisodes(data, records.slice(0, options.questions), { ...options, maxPositions }),
        );
      }
      const { episodes, sequences } = turns.get(maxPositions)!;
      // one teacher-forced pass scores both probes: the (tag, kind) cells and the memory's steps (the whole turns,
      // teacherPath, take a second pass over the same turns)
      const hits = await probeHits(model, data.tokenizer, sequences, {
        copy: (s) => copyKeys(data.tokenizer, names, s),
        steps: (s) => stepPositions(data.tokenizer, s),
      });
      diagnostic.agents[name] = copyCells(hits.copy);
      diagnostic.steps ??= {};
      diagnostic.steps[name] = stepCells(hits.steps);
      diagnostic.paths ??= {};
      diagnostic.paths[name] = await teacherPath(model, data.tokenizer, episodes, {
        maxTurnTokens: options.maxTurnTokens,
      });
    }
    out.push(diagnostic);
  }
  return out;
}

/**
 * The diagnostics as Markdown: one row per agent and test set, one column
 * per (tag, kind); each cell is the accuracy and the number of tokens scored.
 *
 * Source: see {@linkcode copyAccuracy}.
 *
 * @param sets The diagnostics (one per test set).
 * @returns A heading, a sentence and a table.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { copyDiagnosticMarkdown } from "./copy_diagnostic.ts";
 *
 * const md = copyDiagnosticMarkdown([{ objectives: 2, agents: { SFT: [{ tag: "search", kind: "name", correct: 1, total: 4 }] } }]);
 * assert.match(md, /\| SFT \| 2 \| 25% \(4\) \|/);
 * ```
 */
export function copyDiagnosticMarkdown(sets: readonly CopyDiagnostic[]): string {
  const keys = [...new Set(sets.flatMap((d) => Object.values(d.agents).flat().map((c) => `${c.tag}/${c.kind}`)))];
  const agents = [...new Set(sets.flatMap((d) => Object.keys(d.agents)))];
  const pct = (c: { correct: number; total: number } | undefined) =>
    c ? `${Math.round((100 * c.correct) / c.total)}% (${c.total})` : "–";
  // one row per agent and test set: the agents in order, each over its test sets
  const copyRows = agents.flatMap((agent) =>
    sets.filter((d) => agent in d.agents).map((d) => [
      agent,
      String(d.objectives),
      ...keys.map((k) => pct(d.agents[agent]!.find((x) => `${x.tag}/${x.kind}` === k))),
    ])
  );
  const stepKeys = STEP_KINDS.filter((k) =>
    sets.some((d) => Object.values(d.steps ?? {}).flat().some((c) => c.step === k))
  );
  const stepRows = agents.flatMap((agent) =>
    sets.filter((d) => d.steps?.[agent] !== undefined).map((d) => [
      agent,
      String(d.objectives),
      ...stepKeys.map((k) => pct(d.steps![agent]!.find((x) => x.step === k))),
    ])
  );
  const pathRows = agents.flatMap((agent) =>
    sets.filter((d) => d.paths?.[agent] !== undefined).map((d) => [
      agent,
      String(d.objectives),
      ...pathCells(d.paths![agent]!),
    ])
  );
  return [
    "## Where the agents go wrong",
    "",
    "Teacher-forced greedy accuracy on the scripted teacher's turns (memory context, each test set's first questions): " +
    "entity names must be copied from the question, a document or memory; other words can be learned by heart.",
    "",
    markdownTable(["agent", "objectives", ...keys], copyRows).markdown,
    ...(stepRows.length === 0 ? [] : [
      "",
      "Each step of the memory's per-turn operation, on the same turns: the open objectives copied from the question " +
      "(first turn) or carried from the previous memory, the one rewritten after a first hop, the answers carried and " +
      "the one appended from the document just read, the separators, the think, the search and the final answer " +
      "(accuracy over the step's tokens; tokens scored in parentheses).",
      "",
      markdownTable(["agent", "objectives", ...stepKeys], stepRows).markdown,
    ]),
    ...(pathRows.length === 0 ? [] : [
      "",
      "Whole turns, on the same episodes: each teacher turn generated greedily from the teacher's context of it. An " +
      "episode every turn of which comes out exact is one the free-running greedy agent reproduces; every other " +
      "leaves the teacher's path at its first inexact turn, in the part of it (the memory's open objectives, its " +
      "answers, or the think and action) where the first token differs. The share of exact turns at each turn index " +
      "(turn 0 writes the open list from the question); the episodes leaving the path, by part.",
      "",
      markdownTable(["agent", "objectives", ...PATH_COLUMNS], pathRows).markdown,
    ]),
  ].join("\n");
}
