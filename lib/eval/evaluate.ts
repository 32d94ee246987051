/**
 * Evaluation: each agent (a model and a context policy) on each test set,
 * greedy decoding; mean EM, mean F1, format-valid rate, mean total tokens and
 * mean peak context per episode. The scripted teacher runs beside the models
 * as the ceiling: what a perfect policy scores and spends under each context
 * policy.
 *
 * @module
 */
import type { LoadedData } from "../data/build.ts";
import type { Model } from "../model/params.ts";
import type { ContextPolicy } from "../env/context.ts";
import { type AgentPolicy, type Episode, runEpisodes } from "../env/rollout.ts";
import { EPISODE_ENDS, type EpisodeEnd, episodeEnds } from "./episode_ends.ts";
import { keptFacts } from "./kept_facts.ts";
import { modelPolicy } from "../env/model_policy.ts";
import { createTeacher, type MemoryFormat } from "../env/teacher.ts";
import type { Tokenizer } from "../text/tokenizer.ts";
import { tasksFromRecords } from "../train/demos.ts";
import type { Algorithm, EvalConfig } from "../config/experiment.ts";
import { markdownTable } from "../viz/table.ts";
import { type EpisodeRecord, episodeRecord } from "../episodes/episode_record.ts";

/** Receives a cell's episodes as records (the run's episode log). */
export type OnEvalEpisodes = (records: EpisodeRecord[]) => void | Promise<void>;

/** An agent to evaluate: a model (greedy) or a scripted policy. */
export type AgentSpec =
  & {
    /** Row label (e.g. `MemPO`). */
    name: string;
    /** Its context policy. */
    contextPolicy: ContextPolicy;
  }
  & (
    | {
      /** Its weights. */
      model: Model;
    }
    | {
      /** A scripted policy (the teacher). */
      policy: AgentPolicy;
      /** Context positions it runs with (the models' `maxPositions`, for the same truncation). */
      maxPositions: number;
    }
  );

/** Names of the RL algorithms' agents in the tables. */
export const AGENT_NAMES: Readonly<Record<Algorithm, string>> = { ppo: "PPO", grpo: "GRPO", mempo: "MemPO" };

/** The SFT policy's name in the tables. */
export const SFT_AGENT = "SFT";

/** The scripted teacher's name in the tables (the ceiling; it has no training). */
export const TEACHER_AGENT = "Teacher";

/**
 * The evaluated agents of a run: the teacher (full and memory context, the
 * ceiling), SFT with full and with memory context, and each RL policy with
 * memory context.
 *
 * Source: MemPO's comparison (full-context baseline, GRPO, MemPO); MEM1's
 * evaluation of the same model under both contexts.
 *
 * @param sft The SFT model.
 * @param trained RL policies by algorithm, in table order.
 * @param tokenizer The tokenizer (the teacher writes its turns with it).
 * @param memory The teacher's memory format (the run's `teacherMemory(config)`; default createTeacher's).
 * @returns The agents, in table order.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildTokenizer } from "../text/tokenizer.ts";
 * import { createModel } from "../model/params.ts";
 * import { modelPreset } from "../model/config.ts";
 * import { runAgents } from "./evaluate.ts";
 *
 * const tok = buildTokenizer(["q"]);
 * const m = createModel(modelPreset("tiny", tok.size), { seed: 0 });
 * const agents = runAgents(m, new Map([["mempo", m]]), tok);
 * assert.deepEqual(agents.map((a) => `${a.name} ${a.contextPolicy}`), ["Teacher full", "Teacher memory", "SFT full", "SFT memory", "MemPO memory"]);
 * m.dispose();
 * ```
 */
export function runAgents(
  sft: Model,
  trained: ReadonlyMap<Algorithm, Model>,
  tokenizer: Tokenizer,
  memory?: MemoryFormat,
): AgentSpec[] {
  const teacher = createTeacher(tokenizer, { dropProbability: 0, memory });
  const maxPositions = sft.config.maxPositions;
  return [
    { name: TEACHER_AGENT, policy: teacher, maxPositions, contextPolicy: "full" },
    { name: TEACHER_AGENT, policy: teacher, maxPositions, contextPolicy: "memory" },
    { name: SFT_AGENT, model: sft, contextPolicy: "full" },
    { name: SFT_AGENT, model: sft, contextPolicy: "memory" },
    ...[...trained].map(([a, model]) => ({ name: AGENT_NAMES[a], model, contextPolicy: "memory" as const })),
  ];
}

/**
 * How an agent runs: a model agent as {@linkcode modelPolicy} at the given
 * temperature (0: greedy) with the model's context length, a scripted one
 * as it is with the `maxPositions` it was given.
 *
 * Source: this package (the evaluation and the equal-reward groups run agents alike).
 *
 * @param agent The agent.
 * @param padId The tokenizer's padding id.
 * @param temperature Sampling temperature of a model agent (0: greedy).
 * @returns The policy and the context positions to run it with.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildTokenizer } from "../text/tokenizer.ts";
 * import { createTeacher } from "../env/teacher.ts";
 * import { agentPolicy } from "./evaluate.ts";
 *
 * const policy = createTeacher(buildTokenizer(["q"]));
 * const run = agentPolicy({ name: "Teacher", contextPolicy: "memory", policy, maxPositions: 512 }, 0, 0);
 * assert.deepEqual([run.policy === policy, run.maxPositions], [true, 512]);
 * ```
 */
export function agentPolicy(
  agent: AgentSpec,
  padId: number,
  temperature: number,
): { policy: AgentPolicy; maxPositions: number } {
  return "model" in agent
    ? {
      policy: modelPolicy(agent.model, { padId, temperature, batchSize: 32 }),
      maxPositions: agent.model.config.maxPositions,
    }
    : { policy: agent.policy, maxPositions: agent.maxPositions };
}

/** One cell of the evaluation table. */
export interface EvalRow {
  /** Agent name. */
  agent: string;
  /** Context policy. */
  contextPolicy: ContextPolicy;
  /** Objectives per question of the test set. */
  objectives: number;
  /** Mean per-objective exact match. */
  em: number;
  /** Mean per-objective F1. */
  f1: number;
  /** Share of episodes with a valid format. */
  formatValid: number;
  /** Share of episodes with every objective right. */
  reward: number;
  /** Mean Σ (context + generated) tokens per episode. */
  totalTokens: number;
  /** Mean peak context per episode. */
  peakContext: number;
  /** The longest context of the set: the largest peak context of its episodes. */
  maxPeakContext?: number;
  /** Each question's mean EM over its objectives, in test-set order (`em` is their mean; paired comparisons). */
  questionEm?: number[];
  /** Each question's total tokens, in test-set order (`totalTokens` is their mean; matched token comparisons). */
  questionTokens?: number[];
  /** Each question's peak context, in test-set order (`peakContext` is their mean). */
  questionPeak?: number[];
  /** Whether each question's episode ended in a format-valid answer, in test-set order (`formatValid` is their share). */
  questionValid?: boolean[];
  /** Each question's turns (the last one ends the episode: an answer, a broken format or the turn limit), in test-set order. */
  questionTurns?: number[];
  /**
   * The memory decisions (objectives with a plausible wrong fact beside the needed one) and the share of them whose
   * needed fact, or decoy, the final memory holds ({@linkcode keptFacts}); absent in a world without decoys.
   */
  kept?: { decisions: number; needed: number; decoy: number };
  /** The share of episodes that end in an answer, a `<mem>` never closed, another format break, or the turn limit. */
  ends?: Record<EpisodeEnd, number>;
  /** Episodes run. */
  episodes: number;
  /** A sample transcript (the first episode's turns). */
  sample?: string[];
}

/**
 * Evaluates agents on the test sets.
 *
 * Source: MemPO / MEM1 evaluation protocol (EM, F1, tokens and peak memory per objective count).
 *
 * @param agents The agents.
 * @param data Loaded data (test sets).
 * @param config Questions per set, turn limits.
 * @param onRow Called after each cell.
 * @param onEpisodes Called with each cell's episodes, as records (before `onRow`).
 * @returns One row per agent and test set.
 *
 * @example The scripted teacher without drops is the ceiling: every answer right, under both context policies
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildData, loadData } from "../data/build.ts";
 * import { createTeacher } from "../env/teacher.ts";
 * import { evaluateAgents } from "./evaluate.ts";
 *
 * const dir = await Deno.makeTempDir();
 * await buildData(dir, 3, { trainCount: 2, testCount: 2, testObjectives: [1, 2] });
 * const data = await loadData(dir);
 * const policy = createTeacher(data.tokenizer, { dropProbability: 0 });
 * const rows = await evaluateAgents(
 *   (["full", "memory"] as const).map((contextPolicy) => ({ name: "Teacher", policy, maxPositions: 1024, contextPolicy })),
 *   data,
 *   { questions: 2, maxTurns: 20, maxTurnTokens: 96 },
 * );
 * assert.deepEqual(rows.map((r) => [r.contextPolicy, r.objectives, r.em, r.f1, r.episodes]), [
 *   ["full", 1, 1, 1, 2], ["full", 2, 1, 1, 2], ["memory", 1, 1, 1, 2], ["memory", 2, 1, 1, 2],
 * ]);
 * // the memory context's peak is below the whole history's at 2 objectives
 * assert.ok(rows[3]!.peakContext < rows[1]!.peakContext);
 * ```
 */
export async function evaluateAgents(
  agents: readonly AgentSpec[],
  data: LoadedData,
  config: EvalConfig,
  onRow?: (row: EvalRow) => void | Promise<void>,
  onEpisodes?: OnEvalEpisodes,
): Promise<EvalRow[]> {
  const rows: EvalRow[] = [];
  for (const agent of agents) {
    for (const objectives of testSizes(data)) {
      const row = await evaluateCell(agent, data, objectives, config, onEpisodes);
      rows.push(row);
      await onRow?.(row);
    }
  }
  return rows;
}

/**
 * The test sets' objective counts, ascending: the columns of the evaluation, in {@linkcode evaluateAgents}' order.
 *
 * Source: this package.
 *
 * @param data Loaded data (its test sets).
 * @returns The objective counts.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { testSizes } from "./evaluate.ts";
 *
 * assert.deepEqual(testSizes({ test: new Map([[4, []], [1, []], [2, []]]) }), [1, 2, 4]);
 * ```
 */
export function testSizes(data: Pick<LoadedData, "test">): number[] {
  return [...data.test.keys()].sort((a, b) => a - b);
}

/**
 * The test sets' questions as one string: two loads of the same data agree on it, other data do not.
 *
 * Source: this package (what an eval worker checks its own load of the data against).
 *
 * @param data Loaded data (its test sets).
 * @returns The fingerprint.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { testFingerprint } from "./evaluate.ts";
 *
 * const set = (q: string) => ({ test: new Map([[1, [{ question: q }]]]) }) as never;
 * assert.equal(testFingerprint(set("a ?")), testFingerprint(set("a ?")));
 * assert.notEqual(testFingerprint(set("a ?")), testFingerprint(set("b ?")));
 * ```
 */
export function testFingerprint(data: Pick<LoadedData, "test">): string {
  return JSON.stringify(testSizes(data).map((k) => [k, data.test.get(k)!.map((r) => r.question)]));
}

/**
 * One cell of the evaluation: an agent on the test set of `objectives`
 * objectives (its first `config.questions` questions), greedy, seed 0. A
 * cell depends on nothing but the agent, the data and the config, so cells
 * may run in any order or process (`evaluateOnWorkers`).
 *
 * Source: this package ({@linkcode evaluateAgents}' cell).
 *
 * @param agent The agent.
 * @param data Loaded data (test sets).
 * @param objectives The test set's objective count.
 * @param config Questions per set, turn limits.
 * @param onEpisodes Receives the cell's episodes as records (`episodeRecord`, index = the question's in the set).
 * @returns The row.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildData, loadData } from "../data/build.ts";
 * import { createTeacher } from "../env/teacher.ts";
 * import { evaluateAgents, evaluateCell } from "./evaluate.ts";
 *
 * const dir = await Deno.makeTempDir();
 * await buildData(dir, 3, { trainCount: 2, testCount: 2, testObjectives: [1, 2] });
 * const data = await loadData(dir);
 * const agent = { name: "Teacher", policy: createTeacher(data.tokenizer, { dropProbability: 0 }), maxPositions: 1024, contextPolicy: "memory" as const };
 * const config = { questions: 2, maxTurns: 20, maxTurnTokens: 96 };
 * const row = await evaluateCell(agent, data, 2, config);
 * assert.deepEqual([row.objectives, row.em, row.episodes], [2, 1, 2]);
 * assert.deepEqual(row, (await evaluateAgents([agent], data, config))[1]);
 * ```
 */
export async function evaluateCell(
  agent: AgentSpec,
  data: LoadedData,
  objectives: number,
  config: EvalConfig,
  onEpisodes?: OnEvalEpisodes,
): Promise<EvalRow> {
  const records = data.test.get(objectives);
  if (records === undefined) throw new RangeError(`Cannot evaluate: no test set of ${objectives} objectives`);
  const { policy, maxPositions } = agentPolicy(agent, data.tokenizer.padId, 0);
  const eps = await runEpisodes(policy, tasksFromRecords(records.slice(0, config.questions)), data, {
    contextPolicy: agent.contextPolicy,
    maxTurns: config.maxTurns,
    maxTurnTokens: config.maxTurnTokens,
    maxPositions,
    seed: 0,
  });
  const identity = { stage: "eval", agent: agent.name, contextPolicy: agent.contextPolicy };
  await onEpisodes?.(eps.map((e, index) => episodeRecord(e, data.tokenizer, { ...identity, index })));
  const n = Math.max(1, eps.length);
  const mean = (f: (e: typeof eps[0]) => number) => eps.reduce((a, e) => a + f(e), 0) / n;
  const avg = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
  return {
    agent: agent.name,
    contextPolicy: agent.contextPolicy,
    objectives,
    em: mean((e) => avg(e.score.em)),
    f1: mean((e) => avg(e.score.f1)),
    formatValid: mean((e) => (e.formatValid ? 1 : 0)),
    reward: mean((e) => e.reward),
    totalTokens: mean((e) => e.totalTokens),
    peakContext: mean((e) => e.peakContext),
    maxPeakContext: eps.reduce((a, e) => Math.max(a, e.peakContext), 0),
    questionEm: eps.map((e) => avg(e.score.em)),
    questionTokens: eps.map((e) => e.totalTokens),
    questionPeak: eps.map((e) => e.peakContext),
    questionValid: eps.map((e) => e.formatValid),
    questionTurns: eps.map((e) => e.turns.length),
    ends: episodeEnds(eps),
    ...keptShares(eps),
    episodes: eps.length,
    sample: eps[0]?.turns.map((t) => t.text),
  };
}

/**
 * The evaluation table in Markdown: rows = agents, columns = objective
 * counts, each cell `EM / F1 / total tokens / peak context`.
 *
 * Source: MemPO Table 1 layout (metrics per number of objectives).
 *
 * @param rows Evaluation rows.
 * @returns Markdown text.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { evalMarkdown } from "./evaluate.ts";
 *
 * const md = evalMarkdown([{ agent: "A", contextPolicy: "memory", objectives: 2, em: 0.5, f1: 0.6, formatValid: 1, reward: 0.5, totalTokens: 300, peakContext: 120, episodes: 4 }]);
 * assert.match(md, /\| A \(memory\) \| 0.50 \/ 0.60 \/ 300 \/ 120 \|/);
 * ```
 */
export function evalMarkdown(rows: readonly EvalRow[]): string {
  return agentObjectivesTable(
    rows,
    (k) => `${k} obj: EM / F1 / total tok / peak`,
    (r) => `${r.em.toFixed(2)} / ${r.f1.toFixed(2)} / ${Math.round(r.totalTokens)} / ${Math.round(r.peakContext)}`,
  );
}

/** The `kept` field of a row: shares of the memory decisions, or nothing where the set has none. */
function keptShares(eps: readonly Episode[]): Pick<EvalRow, "kept"> {
  const k = keptFacts(eps);
  return k.decisions === 0
    ? {}
    : { kept: { decisions: k.decisions, needed: k.needed / k.decisions, decoy: k.decoy / k.decisions } };
}

/**
 * A Markdown table of per-(agent, test set) rows pivoted: one row per agent
 * and context policy (`SFT (memory)`, in the order they first appear), one
 * column per objective count (ascending), `–` where an agent has no row for
 * that count. The layout of eval.md's tables.
 *
 * Source: MemPO Table 1 layout (metrics per number of objectives); `markdownTable`.
 *
 * @param rows Rows with an agent, a context policy and an objective count.
 * @param header The column title of objective count `k`.
 * @param cell The text of a row's cell.
 * @returns Markdown text.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { agentObjectivesTable } from "./evaluate.ts";
 *
 * const rows = [
 *   { agent: "SFT", contextPolicy: "full" as const, objectives: 2, em: 0.5 },
 *   { agent: "SFT", contextPolicy: "full" as const, objectives: 1, em: 0.75 },
 *   { agent: "MemPO", contextPolicy: "memory" as const, objectives: 2, em: 0.25 },
 * ];
 * assert.equal(
 *   agentObjectivesTable(rows, (k) => `${k} obj`, (r) => r.em.toFixed(2)),
 *   "| agent | 1 obj | 2 obj |\n| --- | --- | --- |\n| SFT (full) | 0.75 | 0.50 |\n| MemPO (memory) | – | 0.25 |",
 * );
 * ```
 */
export function agentObjectivesTable<R extends Pick<EvalRow, "agent" | "contextPolicy" | "objectives">>(
  rows: readonly R[],
  header: (objectives: number) => string,
  cell: (row: R) => string,
): string {
  const ks = [...new Set(rows.map((r) => r.objectives))].sort((a, b) => a - b);
  const label = (r: R) => `${r.agent} (${r.contextPolicy})`;
  const agents = [...new Set(rows.map(label))];
  return markdownTable(
    ["agent", ...ks.map(header)],
    agents.map((a) => [
      a,
      ...ks.map((k) => {
        const r = rows.find((x) => label(x) === a && x.objectives === k);
        return r ? cell(r) : "–";
      }),
    ]),
  ).markdown;
}

/**
 * The section "What the memory kept" of eval.md: per agent and test set, the
 * share of memory decisions whose needed fact the final memory holds, then
 * the decoy's share, then how many decisions the set had.
 *
 * Source: this package.
 *
 * @param rows Evaluation rows (those without `kept` show `–`).
 * @returns Markdown.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { keptFactsMarkdown } from "./evaluate.ts";
 *
 * const row = { agent: "SFT", contextPolicy: "memory" as const, objectives: 2, kept: { decisions: 4, needed: 0.75, decoy: 0.25 } };
 * assert.match(keptFactsMarkdown([row] as never), /\| SFT \(memory\) \| 0\.75 \/ 0\.25 \/ 4 \|/);
 * ```
 */
export function keptFactsMarkdown(rows: readonly EvalRow[]): string {
  return [
    "## What the memory kept",
    "",
    "Objectives whose search results also state a plausible wrong answer (a person's birthplace and the city it lives in):",
    "the share whose needed fact the final `<mem>` holds / the share that holds the wrong one instead / how many",
    "such objectives the set had.",
    "",
    agentObjectivesTable(
      rows,
      (k) => `${k} obj`,
      (r) => r.kept ? `${r.kept.needed.toFixed(2)} / ${r.kept.decoy.toFixed(2)} / ${r.kept.decisions}` : "–",
    ),
  ].join("\n");
}

/**
 * The section "How the episodes end" of eval.md: per agent and test set, the
 * share of episodes that end in a format-valid answer / with a `<mem>` never
 * closed / with another break of the format / at the turn limit
 * ({@linkcode episodeEnds}).
 *
 * Source: this package.
 *
 * @param rows Evaluation rows (those without `ends` show `–`).
 * @returns Markdown.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { episodeEndsMarkdown } from "./evaluate.ts";
 *
 * const ends = { "answer": 0.5, "memory not closed": 0.25, "other format break": 0.25, "turn limit": 0 };
 * const row = { agent: "SFT", contextPolicy: "memory" as const, objectives: 8, ends };
 * assert.match(episodeEndsMarkdown([row] as never), /\| SFT \(memory\) \| 0\.50 \/ 0\.25 \/ 0\.25 \/ 0\.00 \|/);
 * ```
 */
export function episodeEndsMarkdown(rows: readonly EvalRow[]): string {
  return [
    "## How the episodes end",
    "",
    "The share of episodes that end in a format-valid answer (right or wrong) / with a `<mem>` never closed (the turn",
    "ran to its token limit inside the memory: mostly a memory that repeats itself) / with another break of the format",
    "/ at the turn limit without an answer (lib/eval/episode_ends.ts):",
    "",
    agentObjectivesTable(
      rows,
      (k) => `${k} obj`,
      (r) => r.ends ? EPISODE_ENDS.map((k) => r.ends![k].toFixed(2)).join(" / ") : "–",
    ),
  ].join("\n");
}
