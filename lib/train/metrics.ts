/**
 * Metrics: the names logged per step (one line of `metrics.jsonl` each),
 * explained variance, and summaries of episodes.
 *
 * @module
 */
import type { Episode } from "../env/rollout.ts";

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
 * | `rollout/sampled_tokens` | policy tokens trained on |
 * | `ppo/clip_fraction`, `ppo/approx_kl` (k1, old − new) | verl diagnostics |
 * | `kl/ref` | mean reference KL (the configured estimator) |
 * | `policy/entropy` | mean token entropy |
 * | `loss/policy`, `loss/value` | losses |
 * | `value/explained_variance` | PPO critic quality |
 * | `memory/reward_mean`, `memory/reward_std`, `memory/p_mem`, `memory/p_full`, `memory/turns` | MemPO memory reward |
 * | `grpo/frac_zero_std` | share of groups whose rewards were all equal |
 * | `train/skipped` | 1 when a NaN/Inf loss skipped the update |
 * | `time/rollout`, `time/memory_reward`, `time/advantages`, `time/update`, `time/step` | seconds |
 */
export type MetricsRow = Record<string, number | string>;

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
  };
}
