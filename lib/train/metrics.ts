/**
 * Metrics: the names logged per step (one line of `metrics.jsonl` each),
 * explained variance, and summaries of episodes.
 *
 * @module
 */
import type { Episode } from "../env/rollout.ts";
import { type Algorithm, ALGORITHMS } from "../config/experiment.ts";

/**
 * The metric names, slash-namespaced (cleanrl / TRL style). `time/*` are
 * wall-clock seconds and are the only fields that differ between two runs
 * with the same seed and backend.
 *
 * | name | meaning |
 * | --- | --- |
 * | `rollout/reward_mean` | mean outcome reward of the step's episodes |
 * | `rollout/em`, `rollout/f1` | mean per-objective EM / F1 |
 * | `rollout/format_valid` | share of episodes that passed `validateFormat` |
 * | `rollout/turns`, `rollout/total_tokens`, `rollout/peak_context` | per-episode means |
 * | `rollout/peak_context_max` | the step's longest context (largest peak context of its episodes) |
 * | `rollout/sampled_tokens` | policy tokens trained on |
 * | `ppo/clip_fraction`, `ppo/approx_kl` (k1, old − new) | verl diagnostics |
 * | `kl/ref` | mean reference KL (the configured estimator) |
 * | `policy/entropy` | mean token entropy |
 * | `loss/policy`, `loss/value` | losses |
 * | `value/explained_variance` | PPO critic quality |
 * | `memory/reward_mean`, `memory/reward_std`, `memory/p_mem`, `memory/p_full`, `memory/turns` | MemPO memory reward |
 * | `grpo/frac_zero_std` | share of groups whose rewards were all equal (`equalGroupShare`) |
 * | `grpo/frac_zero_std_k{k}` | the same over the step's questions of k objectives (only the counts drawn) |
 * | `train/skipped` | 1 when a NaN/Inf loss skipped the update |
 * | `time/rollout`, `time/memory_reward`, `time/advantages`, `time/update`, `time/step` | seconds |
 */
export type MetricsRow = Record<string, number | string>;

/**
 * The RL stages (algorithms) a metrics log holds, in the order of their first
 * rows; other stages (`pretrain`, `sft`) are left out.
 *
 * Source: the `stage` field this module's rows carry (lib/train/metrics_log.ts).
 *
 * @param metrics `metrics.jsonl` rows.
 * @returns The algorithms with at least one row.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { rlStages } from "./metrics.ts";
 *
 * assert.deepEqual(rlStages([{ stage: "sft", step: 0 }, { stage: "mempo", step: 0 }, { stage: "grpo", step: 0 }, { stage: "mempo", step: 1 }]), ["mempo", "grpo"]);
 * ```
 */
export function rlStages(metrics: readonly MetricsRow[]): Algorithm[] {
  const known: readonly string[] = ALGORITHMS;
  return [...new Set(metrics.map((r) => String(r.stage)))].filter((s): s is Algorithm => known.includes(s));
}

/**
 * Explained variance of value predictions: 1 − Var(R − V) / Var(R).
 *
 * Source: OpenAI baselines `explained_variance`; cleanrl PPO.
 *
 * @param values Predictions V.
 * @param returns Targets R.
 * @returns EV (1 = perfect, 0 = no better than a constant; NaN when Var(R) = 0).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { explainedVariance } from "./metrics.ts";
 *
 * assert.equal(explainedVariance([1, 2, 3], [1, 2, 3]), 1);
 * assert.equal(explainedVariance([2, 2, 2], [1, 2, 3]), 0);
 * ```
 */
export function explainedVariance(values: readonly number[], returns: readonly number[]): number {
  const variance = (xs: readonly number[]) => {
    const m = xs.reduce((a, b) => a + b, 0) / xs.length;
    return xs.reduce((a, x) => a + (x - m) ** 2, 0) / xs.length;
  };
  const vr = variance(returns);
  if (returns.length === 0 || vr === 0) return NaN;
  return 1 - variance(returns.map((r, i) => r - values[i]!)) / vr;
}

/**
 * Rollout statistics of a batch of episodes.
 *
 * Source: MemPO / MEM1 evaluation (EM, F1, tokens, peak context).
 *
 * @param episodes Finished episodes.
 * @returns `rollout/*` metrics.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { episodeMetrics } from "./metrics.ts";
 *
 * const e = { reward: 1, score: { em: [1, 0], f1: [1, 0.5] }, formatValid: true, turns: [{}, {}], totalTokens: 10, peakContext: 7 } as never;
 * assert.deepEqual(episodeMetrics([e])["rollout/f1"], 0.75);
 * ```
 */
export function episodeMetrics(episodes: readonly Episode[]): MetricsRow {
  const n = Math.max(1, episodes.length);
  const mean = (f: (e: Episode) => number) => episodes.reduce((a, e) => a + f(e), 0) / n;
  const avg = (xs: readonly number[]) => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);
  return {
    "rollout/reward_mean": mean((e) => e.reward),
    "rollout/em": mean((e) => avg(e.score.em)),
    "rollout/f1": mean((e) => avg(e.score.f1)),
    "rollout/format_valid": mean((e) => (e.formatValid ? 1 : 0)),
    "rollout/turns": mean((e) => e.turns.length),
    "rollout/total_tokens": mean((e) => e.totalTokens),
    "rollout/peak_context": mean((e) => e.peakContext),
    "rollout/peak_context_max": episodes.reduce((a, e) => Math.max(a, e.peakContext), 0),
  };
}

/**
 * The share of groups (episodes of one question) whose scores pass a test:
 * the groups are formed once, here, for every share the package reports.
 *
 * ```text
 * share = |{g : test(scores of g)}| / |groups|      (0 when there are no groups)
 * ```
 *
 * Source: DAPO (arXiv:2503.14476) §3.2 (groups of all-right or all-wrong answers give no gradient).
 *
 * @param scores One score per episode, `[N]`.
 * @param groupIds The group (question) of each episode, `[N]`.
 * @param test Whether a group's scores (in episode order) count.
 * @returns The share and the number of groups.
 *
 * @example Groups a = {1, 1}, b = {0, 1}, c = {0}: one group all right
 * ```ts
 * import assert from "node:assert/strict";
 * import { groupShare } from "./metrics.ts";
 *
 * assert.deepEqual(groupShare([1, 1, 0, 1, 0], ["a", "a", "b", "b", "c"], (s) => s.every((x) => x === 1)), { share: 1 / 3, groups: 3 });
 * ```
 */
export function groupShare(
  scores: readonly number[],
  groupIds: readonly (string | number)[],
  test: (groupScores: readonly number[]) => boolean,
): { share: number; groups: number } {
  if (scores.length !== groupIds.length) {
    throw new TypeError(
      `Cannot compute a group share: groupIds must have one id per score (${scores.length}), current length is ${groupIds.length}`,
    );
  }
  const byGroup = new Map<string | number, number[]>();
  groupIds.forEach((g, i) => byGroup.set(g, [...(byGroup.get(g) ?? []), scores[i]!]));
  const passed = [...byGroup.values()].filter(test).length;
  return { share: byGroup.size === 0 ? 0 : passed / byGroup.size, groups: byGroup.size };
}

/**
 * The share of groups whose scores are all equal: GRPO gives each such group
 * zero advantage, so its episodes teach nothing (a group of one counts as equal).
 *
 * ```text
 * share = |{g : s_i = s_j for all i, j in g}| / |groups|      (0 when there are no groups)
 * ```
 *
 * Source: DAPO (arXiv:2503.14476) §3.2 (groups of all-right or all-wrong answers give no gradient);
 * verl logs the same share of zero-std groups.
 *
 * @param scores One score per episode, `[N]`.
 * @param groupIds The group (question) of each episode, `[N]`.
 * @returns The share and the number of groups.
 *
 * @example Groups a = {1, 1} (equal), b = {0, 1}, c = {0} (alone: equal)
 * ```ts
 * import assert from "node:assert/strict";
 * import { equalGroupShare } from "./metrics.ts";
 *
 * assert.deepEqual(equalGroupShare([1, 1, 0, 1, 0], ["a", "a", "b", "b", "c"]), { share: 2 / 3, groups: 3 });
 * ```
 */
export function equalGroupShare(
  scores: readonly number[],
  groupIds: readonly (string | number)[],
): { share: number; groups: number } {
  return groupShare(scores, groupIds, rewardsEqual);
}

/**
 * Whether one group's scores are all equal (all right, all wrong, or one
 * score): GRPO's advantage is then 0 on each of its episodes. The one test of
 * equality behind {@linkcode equalGroupShare} and DAPO's dynamic sampling.
 *
 * Source: DAPO (arXiv:2503.14476) §3.2 (a group whose accuracy is 0 or 1 gives no gradient).
 *
 * @param scores The group's scores.
 * @returns True when every score equals the first.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { rewardsEqual } from "./metrics.ts";
 *
 * assert.deepEqual([rewardsEqual([1, 1]), rewardsEqual([0, 1]), rewardsEqual([0.5])], [true, false, true]);
 * ```
 */
export function rewardsEqual(scores: readonly number[]): boolean {
  return scores.every((x) => x === scores[0]);
}

/**
 * The GRPO group metrics of one RL step: the share of groups whose outcome
 * rewards are all equal ({@linkcode equalGroupShare}), over all the step's
 * questions and over those of each objective count (a group's episodes share
 * one question, so one count).
 *
 * ```text
 * grpo/frac_zero_std      = equalGroupShare(rewards, groups)
 * grpo/frac_zero_std_k{k} = equalGroupShare over the episodes whose question has k objectives   (counts drawn only)
 * ```
 *
 * Source: DAPO (arXiv:2503.14476) §3.2; verl's zero-std group share.
 *
 * @param episodes The step's episodes (`reward`, `task.groupId`, `task.targets`: one entry per objective).
 * @returns The metrics.
 *
 * @example Question 0 (1 objective) all right, question 1 (2 objectives) mixed
 * ```ts
 * import assert from "node:assert/strict";
 * import { equalGroupMetrics } from "./metrics.ts";
 *
 * const ep = (groupId: number, reward: number, targets: string[][]) => ({ reward, task: { groupId, targets } }) as never;
 * assert.deepEqual(equalGroupMetrics([ep(0, 1, [["a"]]), ep(0, 1, [["a"]]), ep(1, 0, [["a"], ["b"]]), ep(1, 1, [["a"], ["b"]])]), {
 *   "grpo/frac_zero_std": 0.5,
 *   "grpo/frac_zero_std_k1": 1,
 *   "grpo/frac_zero_std_k2": 0,
 * });
 * ```
 */
export function equalGroupMetrics(episodes: readonly Episode[]): MetricsRow {
  const scores = episodes.map((e) => e.reward);
  const groups = episodes.map((e) => e.task.groupId);
  const objectives = episodes.map((e) => e.task.targets.length);
  const row: MetricsRow = { "grpo/frac_zero_std": equalGroupShare(scores, groups).share };
  for (const k of [...new Set(objectives)].sort((a, b) => a - b)) {
    const of = episodes.flatMap((_, i) => (objectives[i] === k ? [i] : []));
    row[`grpo/frac_zero_std_k${k}`] = equalGroupShare(of.map((i) => scores[i]!), of.map((i) => groups[i]!)).share;
  }
  return row;
}
