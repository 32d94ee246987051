/**
 * The induction warm-up's end by its loss (`sft.pretrainLoss`). The copy
 * task's loss stays near its start (~5 nats) until an induction head forms,
 * then falls within ~100 steps to under 0.5 (a phase change, Olsson et al.
 * 2022); when it falls differs from seed to seed. A warm-up stopped at a fixed
 * step can end before the head forms, and the SFT that follows never learns
 * to copy a name (default preset, seed 2: loss 3.0 at step 450, EM 0 at every
 * size). With a loss threshold the warm-up goes on, up to its cosine's
 * horizon, until the head has formed.
 *
 * @module
 */

/** Steps whose mean loss decides the warm-up's end: the mean of the last this many. */
export const WARMUP_LOSS_WINDOW = 20;

/**
 * Whether a warm-up of these step losses may end: at least `minSteps` steps
 * run, and the mean of the last {@linkcode WARMUP_LOSS_WINDOW} below
 * `threshold`.
 *
 * ```text
 * done(t) = t ≥ minSteps  and  mean(loss[t−W], …, loss[t−1]) < threshold      (t = steps run, W = 20)
 * ```
 *
 * Source: this package (the phase change of induction heads: Olsson et al. 2022, "In-context Learning and Induction
 * Heads", arXiv:2209.11895).
 *
 * @param losses The warm-up's losses so far, one per step, in order.
 * @param minSteps Steps the warm-up runs at least (`sft.pretrainSteps`).
 * @param threshold The loss below which the head counts as formed (`sft.pretrainLoss`).
 * @returns True when the warm-up may stop before its next step.
 * @throws {RangeError} When `minSteps` is negative or not an integer, or `threshold` not a positive number.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { warmupFormed } from "./warmup_stop.ts";
 *
 * const formed = [...Array(30).fill(5), ...Array(20).fill(0.4)];
 * assert.equal(warmupFormed(formed, 40, 1), true); // the last 20 average 0.4
 * assert.equal(warmupFormed(formed, 60, 1), false); // fewer steps than the minimum
 * assert.equal(warmupFormed(formed.slice(0, 45), 40, 1), false); // (15 × 0.4 + 5 × 5) / 20 = 1.55
 * ```
 */
export function warmupFormed(losses: readonly number[], minSteps: number, threshold: number): boolean {
  if (!Number.isInteger(minSteps) || minSteps < 0) {
    throw new RangeError(`warmupFormed: minSteps must be an integer ≥ 0, current value is ${minSteps}`);
  }
  if (!(threshold > 0) || !Number.isFinite(threshold)) {
    throw new RangeError(`warmupFormed: threshold must be a positive number, current value is ${threshold}`);
  }
  if (losses.length < minSteps || losses.length < WARMUP_LOSS_WINDOW) return false;
  let sum = 0;
  for (let i = losses.length - WARMUP_LOSS_WINDOW; i < losses.length; i++) sum += losses[i]!;
  return sum / WARMUP_LOSS_WINDOW < threshold;
}
