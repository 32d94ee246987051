/**
 * PPO's clipped surrogate objective, with asymmetric clipping and dual-clip.
 *
 * @module
 */
import { tf } from "../tf.ts";
import { type AggMode, aggregateLoss, type AggregateOptions } from "../tensor/aggregate_loss.ts";
import { maskedMean } from "../tensor/masked.ts";
import { assertRank, assertSameShape } from "../tensor/shape.ts";

/** Inputs of {@linkcode ppoClipLoss}, all `[B, T]` float32. */
export interface PpoClipInputs {
  /** log π_θ(a_t|s_t), current policy (carries the gradient). */
  logProbs: tf.Tensor;
  /** log π_θ_old(a_t|s_t), recorded at rollout. */
  oldLogProbs: tf.Tensor;
  /** Â_t. */
  advantages: tf.Tensor;
  /** 1 = policy-sampled token (loss mask). */
  mask: tf.Tensor;
  /** Optional per-token weights multiplied into the loss (verl's rollout IS weights). */
  weights?: tf.Tensor;
}

/** Options of {@linkcode ppoClipLoss}. */
export interface PpoClipOptions {
  /** ε_low: ρ is clipped below at 1 − clipLow. @default 0.2 */
  clipLow?: number;
  /** ε_high: ρ is clipped above at 1 + clipHigh (DAPO's clip-higher). @default 0.2 */
  clipHigh?: number;
  /** c > 1 of dual-clip PPO (bounds the loss for Â < 0); `Infinity` = plain PPO. @default 3 */
  dualClip?: number;
  /** Loss aggregation. @default "token-mean" */
  aggMode?: AggMode;
  /** Global normalisers passed to `aggregateLoss`. */
  aggOptions?: AggregateOptions;
}

/** Result of {@linkcode ppoClipLoss}; new tensors owned by the caller. */
export interface PpoClipResult {
  /** The aggregated loss (minimise it). */
  loss: tf.Scalar;
  /** Masked mean of [clipped term > unclipped term]. */
  clipFraction: tf.Scalar;
  /** Masked mean of [Â < 0 and the dual-clip bound is active]. */
  clipFractionLower: tf.Scalar;
  /** Masked mean of (old − new) log-prob (k1 estimate of KL(π_old‖π_θ)). */
  approxKl: tf.Scalar;
  /** Per-token loss before aggregation, `[B, T]`. */
  lossMatrix: tf.Tensor2D;
}

/**
 * Clipped surrogate loss of PPO as verl computes it.
 *
 * ```text
 * ρ_t = exp(clamp(logProbs − oldLogProbs, −20, 20))
 * L_t = max(−Â_t·ρ_t, −Â_t·clip(ρ_t, 1 − clipLow, 1 + clipHigh))
 * if Â_t < 0:  L_t = min(L_t, −Â_t·dualClip)          (dual-clip; skipped when dualClip = ∞)
 * loss = aggregateLoss(L · weights, mask, aggMode)
 * ```
 *
 * Shapes: every input `[B, T]` → scalars and a `[B, T]` loss matrix.
 *
 * Source: Schulman et al. 2017, arXiv:1707.06347, Eq. 7; dual-clip: Ye et al.
 * 2020, arXiv:1912.09729, Eq. 5; asymmetric clip: DAPO, arXiv:2503.14476 Eq. 10.
 * Reference: verl `core_algos.py` `compute_policy_loss_vanilla`; MiniMind
 * `train_ppo.py` is `dualClip: Infinity` with symmetric clip.
 * Deviations: `dualClip: Infinity` forms no −Â·c term at all, so Â = 0 cannot
 * produce 0·∞ = NaN.
 *
 * @param inputs Log-probs, advantages, mask (and optional weights).
 * @param options Clip ranges, dual-clip constant, aggregation.
 * @returns The loss and verl's diagnostics.
 *
 * @example ρ = 1.5 with Â = 1 is clipped to 1.2: loss −1.2, clip fraction 1
 * ```ts
 * import { tf } from "../tf.ts";
 * import { assertAllClose } from "../testing/all_close.ts";
 * import { ppoClipLoss } from "./ppo_clip.ts";
 *
 * const out = ppoClipLoss({
 *   logProbs: tf.tensor2d([[Math.log(1.5)]]),
 *   oldLogProbs: tf.tensor2d([[0]]),
 *   advantages: tf.tensor2d([[1]]),
 *   mask: tf.tensor2d([[1]]),
 * });
 * assertAllClose(out.loss, -1.2);
 * assertAllClose(out.clipFraction, 1);
 * ```
 */
export function ppoClipLoss(inputs: PpoClipInputs, options: PpoClipOptions = {}): PpoClipResult {
  const { clipLow = 0.2, clipHigh = 0.2, dualClip = 3, aggMode = "token-mean", aggOptions } = options;
  const { logProbs, oldLogProbs, advantages, mask, weights } = inputs;
  if (!(clipLow >= 0 && clipLow < 1)) {
    throw new RangeError(`Cannot compute ppoClipLoss: clipLow must be in [0, 1), current value is ${clipLow}`);
  }
  if (!(clipHigh >= 0 && Number.isFinite(clipHigh))) {
    throw new RangeError(
      `Cannot compute ppoClipLoss: clipHigh must be a finite number ≥ 0, current value is ${clipHigh}`,
    );
  }
  if (!(dualClip > 1)) {
    throw new RangeError(
      `Cannot compute ppoClipLoss: dualClip must be > 1 (or Infinity), current value is ${dualClip}`,
    );
  }
  assertRank(logProbs, 2, "logProbs");
  assertSameShape(logProbs, oldLogProbs, "logProbs", "oldLogProbs");
  assertSameShape(logProbs, advantages, "logProbs", "advantages");
  assertSameShape(logProbs, mask, "logProbs", "mask");
  if (weights !== undefined) assertSameShape(logProbs, weights, "logProbs", "weights");
  return tf.tidy(() => {
    const logRatio = tf.clipByValue(tf.sub(logProbs, oldLogProbs), -20, 20); // [B, T]
    const ratio = tf.exp(logRatio); // ρ_t
    const negAdv = tf.neg(advantages);
    const unclipped = tf.mul(negAdv, ratio);
    const clipped = tf.mul(negAdv, tf.clipByValue(ratio, 1 - clipLow, 1 + clipHigh));
    const clipLoss = tf.maximum(unclipped, clipped);
    const clipFraction = maskedMean(tf.cast(tf.greater(clipped, unclipped), "float32"), mask) as tf.Scalar;
    let lossMatrix: tf.Tensor = clipLoss;
    let clipFractionLower: tf.Scalar;
    if (Number.isFinite(dualClip)) {
      const bound = tf.mul(negAdv, dualClip);
      const negative = tf.less(advantages, 0);
      lossMatrix = tf.where(negative, tf.minimum(bound, clipLoss), clipLoss);
      const lower = tf.logicalAnd(tf.greater(clipLoss, bound), negative);
      clipFractionLower = maskedMean(tf.cast(lower, "float32"), mask) as tf.Scalar;
    } else {
      clipFractionLower = tf.scalar(0);
    }
    if (weights !== undefined) lossMatrix = tf.mul(lossMatrix, weights);
    const loss = aggregateLoss(lossMatrix, mask, aggMode, aggOptions);
    const approxKl = maskedMean(tf.neg(logRatio), mask) as tf.Scalar;
    return { loss, clipFraction, clipFractionLower, approxKl, lossMatrix: lossMatrix as tf.Tensor2D };
  });
}
