/**
 * The critic's clipped value loss.
 *
 * @module
 */
import { tf } from "../tf.ts";
import { type AggMode, aggregateLoss, type AggregateOptions } from "../tensor/aggregate_loss.ts";
import { maskedMean } from "../tensor/masked.ts";
import { assertRank, assertSameShape } from "../tensor/shape.ts";

/** Inputs of {@linkcode clippedValueLoss}, all `[B, T]`. */
export interface ValueLossInputs {
  /** V_φ(s_t), current critic predictions (carry the gradient). */
  values: tf.Tensor;
  /** V_φ_old(s_t), recorded at rollout. */
  oldValues: tf.Tensor;
  /** R̂_t, the value targets (`computeGae(...).returns`). */
  returns: tf.Tensor;
  /** 1 = token counted. */
  mask: tf.Tensor;
}

/** Options of {@linkcode clippedValueLoss}. */
export interface ValueLossOptions {
  /** c: predictions may move at most c from the old values. @default 0.5 */
  clipRange?: number;
  /** Loss aggregation. @default "token-mean" */
  aggMode?: AggMode;
  /** Global normalisers passed to `aggregateLoss`. */
  aggOptions?: AggregateOptions;
}

/** Result of {@linkcode clippedValueLoss}; new tensors owned by the caller. */
export interface ValueLossResult {
  /** ½ · aggregated max of the two squared errors. */
  loss: tf.Scalar;
  /** Masked mean of [clipped error > unclipped error]. */
  clipFraction: tf.Scalar;
}

/**
 * PPO's clipped value loss (the critic cannot move far from its rollout values).
 *
 * ```text
 * V_clip = clip(V, V_old − c, V_old + c)
 * loss   = ½ · aggregateLoss(max((V − R̂)², (V_clip − R̂)²), mask, aggMode)
 * ```
 *
 * Shapes: every input `[B, T]` → scalars.
 *
 * Source: Schulman et al. 2017 (arXiv:1707.06347) as implemented in OpenAI
 * baselines `ppo2` (value clipping; Eq. 9 for the value term).
 * Reference: verl `core_algos.py` `compute_value_loss`; MiniMind `train_ppo.py`
 * (`0.5 · max(...)`, token mean).
 *
 * @param inputs New and old values, returns, mask.
 * @param options Clip range and aggregation.
 * @returns The loss and the clip fraction.
 *
 * @example A prediction that jumped past the clip range is pulled back
 * ```ts
 * import { tf } from "../tf.ts";
 * import { assertAllClose } from "../testing/all_close.ts";
 * import { clippedValueLoss } from "./value_clip.ts";
 *
 * // V = 2, V_old = 0, R = 0: V_clip = 0.5; max(4, 0.25) = 4 → loss 2
 * const out = clippedValueLoss({
 *   values: tf.tensor2d([[2]]),
 *   oldValues: tf.tensor2d([[0]]),
 *   returns: tf.tensor2d([[0]]),
 *   mask: tf.tensor2d([[1]]),
 * });
 * assertAllClose(out.loss, 2);
 * assertAllClose(out.clipFraction, 0);
 * ```
 */
export function clippedValueLoss(inputs: ValueLossInputs, options: ValueLossOptions = {}): ValueLossResult {
  const { clipRange = 0.5, aggMode = "token-mean", aggOptions } = options;
  if (!(clipRange >= 0)) {
    throw new RangeError(`Cannot compute clippedValueLoss: clipRange must be ≥ 0, current value is ${clipRange}`);
  }
  const { values, oldValues, returns, mask } = inputs;
  assertRank(values, 2, "values");
  assertSameShape(values, oldValues, "values", "oldValues");
  assertSameShape(values, returns, "values", "returns");
  assertSameShape(values, mask, "values", "mask");
  return tf.tidy(() => {
    const clippedValues = tf.maximum(tf.minimum(values, tf.add(oldValues, clipRange)), tf.sub(oldValues, clipRange));
    const unclippedError = tf.square(tf.sub(values, returns));
    const clippedError = tf.square(tf.sub(clippedValues, returns));
    const lossMatrix = tf.maximum(unclippedError, clippedError);
    const loss = tf.mul(0.5, aggregateLoss(lossMatrix, mask, aggMode, aggOptions)) as tf.Scalar;
    const clipFraction = maskedMean(tf.cast(tf.greater(clippedError, unclippedError), "float32"), mask) as tf.Scalar;
    return { loss, clipFraction };
  });
}
