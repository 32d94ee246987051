/**
 * The longest contexts each agent saw: in training (the SFT teacher
 * demonstrations under its context policy; the RL rollouts of an RL agent)
 * and in each test set, so a reader sees whether a test set takes an agent
 * past every context it was trained on.
 *
 * @module
 */
import type { ContextPolicy } from "../env/context.ts";
import type { Episode } from "../env/rollout.ts";
import type { MetricsRow } from "../train/metrics.ts";
import { AGENT_NAMES, type EvalRow, TEACHER_AGENT } from "./evaluate.ts";
import { markdownTable } from "../viz/table.ts";
import type { Algorithm } from "../config/experiment.ts";

/** The longest training contexts of a run (tokens: context + generated of a turn). */
export interface TrainingContexts {
  /** Longest teacher demonstration the SFT policy trained on, per context policy. */
  demos: Partial<Record<ContextPolicy, number>>;
  /** Longest RL rollout per RL agent (by table name, e.g. `MemPO`), from `rollout/peak_context_max`. */
  rl: Record<string, number>;
}

/** One agent's row of {@linkcode longestContexts}. */
export interface LongestContextRow {
  /** Agent name. */
  agent: string;
  /** Its context policy. */
  contextPolicy: ContextPolicy;
  /** Longest SFT demonstration under its context policy (undefined: not a trained model). */
  sftDemos?: number;
  /** Longest RL rollout (RL agents only). */
  rlRollouts?: number;
  /** Longest context in each test set, by objective count. */
  test: Record<number, number>;
}

/**
 * The longest SFT demonstration under each context policy: the largest peak
 * context of the teacher's episodes the SFT policy trained on. The SFT stage
 * records it in its checkpoint's state, so the evaluation need not run the
 * demonstrations again.
 *
 * ```text
 * demos[p] = max { peakContext(e) : e a demonstration under policy p }
 * ```
 *
 * Source: MemPO §4 (peak tokens per episode); this package (eval.md's context table).
 *
 * @param episodes The SFT demonstrations (`teacherDemonstrations`' episodes).
 * @param policies The context policy of each (`teacherDemonstrations`' policies).
 * @returns Longest demonstration per context policy (policies without one absent).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { demoContexts } from "./longest_contexts.ts";
 *
 * const eps = [{ peakContext: 90 }, { peakContext: 300 }, { peakContext: 120 }] as never[];
 * assert.deepEqual(demoContexts(eps, ["memory", "full", "memory"]), { memory: 120, full: 300 });
 * ```
 */
export function demoContexts(
  episodes: readonly Pick<Episode, "peakContext">[],
  policies: readonly ContextPolicy[],
): Partial<Record<ContextPolicy, number>> {
  if (episodes.length !== policies.length) {
    throw new TypeError(
      `Cannot compute demoContexts: policies must have one entry per episode (${episodes.length}), current length is ${policies.length}`,
    );
  }
  const demos: Partial<Record<ContextPolicy, number>> = {};
  episodes.forEach((e, i) => (demos[policies[i]!] = Math.max(demos[policies[i]!] ?? 0, e.peakContext)));
  return demos;
}

/**
 * The longest training contexts of a run: the SFT demonstrations' under each
 * context policy ({@linkcode demoContexts}), and the largest per-step maximum
 * of each RL stage's rollouts (`rollout/peak_context_max`; runs logged before
 * it existed have none).
 *
 * ```text
 * rl[AGENT_NAMES[a]] = max over the rows of stage a of rollout/peak_context_max
 * ```
 *
 * Source: MemPO §4 (peak tokens per episode); this package (eval.md's context table).
 *
 * @param demos The longest SFT demonstration per context policy ({@linkcode demoContexts}).
 * @param metrics The run's `metrics.jsonl` rows.
 * @returns Longest contexts per demonstration policy and RL agent.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { trainingContexts } from "./longest_contexts.ts";
 *
 * const rows = [{ stage: "mempo", step: 0, "rollout/peak_context_max": 140 }, { stage: "mempo", step: 1, "rollout/peak_context_max": 150 }];
 * assert.deepEqual(trainingContexts({ memory: 120, full: 300 }, rows), { demos: { memory: 120, full: 300 }, rl: { MemPO: 150 } });
 * ```
 */
export function trainingContexts(
  demos: Readonly<Partial<Record<ContextPolicy, number>>>,
  metrics: readonly MetricsRow[],
): TrainingContexts {
  const rl: Record<string, number> = {};
  for (const row of metrics) {
    const name = AGENT_NAMES[String(row.stage) as Algorithm];
    const peak = row["rollout/peak_context_max"];
    if (name !== undefined && typeof peak === "number") rl[name] = Math.max(rl[name] ?? 0, peak);
  }
  return { demos: { ...demos }, rl };
}

/**
 * Per agent of the evaluation: the longest context of its training (the SFT
 * demonstrations under its context policy; for an RL agent, its RL rollouts
 * too) and the longest of each test set (`EvalRow.maxPeakContext`). The
 * teacher has no training.
 *
 * Source: MemPO (arXiv:2603.00680) Figure 1 (peak memory vs objectives); docs/research/many_objectives.md
 * (test sets longer than every training question).
 *
 * @param rows Evaluation rows (with `maxPeakContext`; rows without it are left out).
 * @param training The run's longest training contexts ({@linkcode trainingContexts}).
 * @returns One row per agent, in table order.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { longestContexts } from "./longest_contexts.ts";
 *
 * const row = (agent: string, contextPolicy: "full" | "memory", objectives: number, maxPeakContext: number) =>
 *   ({ agent, contextPolicy, objectives, maxPeakContext }) as never;
 * const table = longestContexts([row("SFT", "full", 2, 400), row("SFT", "full", 8, 1500), row("MemPO", "memory", 8, 260)], {
 *   demos: { full: 700, memory: 240 },
 *   rl: { MemPO: 250 },
 * });
 * assert.deepEqual(table, [
 *   { agent: "SFT", contextPolicy: "full", sftDemos: 700, rlRollouts: undefined, test: { 2: 400, 8: 1500 } },
 *   { agent: "MemPO", contextPolicy: "memory", sftDemos: 240, rlRollouts: 250, test: { 8: 260 } },
 * ]);
 * ```
 */
export function longestContexts(rows: readonly EvalRow[], training: TrainingContexts): LongestContextRow[] {
  const out: LongestContextRow[] = [];
  for (const r of rows) {
    if (r.maxPeakContext === undefined) continue;
    let a = out.find((x) => x.agent === r.agent && x.contextPolicy === r.contextPolicy);
    if (a === undefined) {
      const trained = r.agent !== TEACHER_AGENT;
      a = {
        agent: r.agent,
        contextPolicy: r.contextPolicy,
        sftDemos: trained ? training.demos[r.contextPolicy] : undefined,
        rlRollouts: trained ? training.rl[r.agent] : undefined,
        test: {},
      };
      out.push(a);
    }
    a.test[r.objectives] = r.maxPeakContext;
  }
  return out;
}

/**
 * eval.md's section on {@linkcode longestContexts}: a table with, per agent,
 * the longest training contexts, then the longest of each test set; a test
 * cell longer than every training context of its agent is marked `*`.
 *
 * Source: this package (eval.md).
 *
 * @param rows The rows.
 * @returns Markdown text (empty when there are no rows).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { longestContextsMarkdown } from "./longest_contexts.ts";
 *
 * const md = longestContextsMarkdown([{ agent: "SFT", contextPolicy: "full", sftDemos: 700, test: { 2: 400, 8: 1500 } }]);
 * assert.match(md, /^## Longest contexts\n/);
 * assert.match(md, /\| SFT \(full\) \| 700 \| – \| 400 \| 1500 \* \|/);
 * ```
 */
export function longestContextsMarkdown(rows: readonly LongestContextRow[]): string {
  if (rows.length === 0) return "";
  const ks = [...new Set(rows.flatMap((r) => Object.keys(r.test).map(Number)))].sort((a, b) => a - b);
  const cell = (x: number | undefined) => (x === undefined ? "–" : String(Math.round(x)));
  const table = rows.map((r) => {
    const trained = [r.sftDemos, r.rlRollouts].filter((x): x is number => x !== undefined);
    const longest = trained.length > 0 ? Math.max(...trained) : undefined;
    const tests = ks.map((k) => {
      const v = r.test[k];
      if (v === undefined) return "–";
      return longest !== undefined && v > longest ? `${cell(v)} *` : cell(v);
    });
    return [`${r.agent} (${r.contextPolicy})`, cell(r.sftDemos), cell(r.rlRollouts), ...tests];
  });
  return [
    "## Longest contexts",
    "",
    "Tokens (context + generated) of the longest turn each agent met: in training, the SFT teacher demonstrations",
    "under its context policy (the SFT weights saw both policies' demonstrations) and, for an RL agent, its RL",
    "rollouts (memory context); in each test set, its own greedy episodes. `*`: longer than every training context",
    "of that agent.",
    "",
    markdownTable(
      ["agent", "trained: SFT demos", "trained: RL rollouts", ...ks.map((k) => `test ${k} obj`)],
      table,
    ).markdown,
  ].join("\n");
}
