/**
 * CISPO: clip the importance-sampling weight, not the update.
 *
 * @module
 */
import { tf } from "../tf.ts";
import { type AggMode, aggregateLoss, type AggregateOptions } from "../tensor/aggregate_loss.ts";
import { maskedMean } from "../tensor/masked.ts";
import { assertRank, assertSameShape } from "../tensor/shape.ts";
import { stopGradient } from "../tensor/stop_gradient.ts";

/** Inputs of {@linkcode cispoLoss}, all `[B, T]`. */
export interface CispoInputs {
  /** log π_θ(a_t|s_t) (carries the gradient). */
  logProbs: tf.Tensor;
  /** log π_θ_old(a_t|s_t). */
  oldLogProbs: tf.Tensor;
  /** Â_t. */
  advantages: tf.Tensor;
  /** 1 = policy-sampled token. */
  mask: tf.Tensor;
}

/** Options of {@linkcode cispoLoss}. */
export interface CispoOptions {
  /** Upper bound of the IS weight (MiniMind's `epsilon_high`). @default 5 */
  ratioCap?: number;
  /** Lower bound of the IS weight (verl clamps to 1 − ε_low). @default 0 */
  ratioFloor?: number;
  /** Loss aggregation. @default "token-mean" */
  aggMode?: AggMode;
  /** Global normalisers passed to `aggregateLoss`. */
  aggOptions?: AggregateOptions;
}

/** Result of {@linkcode cispoLoss}; new tensors owned by the caller. */
export interface CispoResult {
  /** The aggregated loss. */
  loss: tf.Scalar;
  /** Per-token loss `[B, T]`. */
  lossMatrix: tf.Tensor2D;
  /** Masked mean of [ρ outside [ratioFloor, ratioCap]]. */
  clipFraction: tf.Scalar;
}

/**
 * CISPO loss: a REINFORCE term weighted by the stopped, clipped ratio, so
 * every token keeps a gradient (PPO's clip zeroes it).
 *
 * ```text
 * ρ_t = exp(clamp(logProbs − oldLogProbs, −20, 20))
 * L_t = − sg(clip(ρ_t, ratioFloor, ratioCap)) · Â_t · logProbs_t
 * ```
 *
 * Shapes: every input `[B, T]` → scalars and a `[B, T]` loss matrix.
 *
 * Source: MiniMax-M1 (arXiv:2506.13585) §3.1, Eq. 4–5.
 * Reference: MiniMind `train_grpo.py` `loss_type == "cispo"`
 * (`clamp(ratio, max=epsilon_high).detach()`); verl `compute_policy_loss_cispo`
 * (`ratioFloor = 1 − ε_low`, `ratioCap = 1 + ε_high`).
 *
 * @param inputs Log-probs, advantages, mask.
 * @param options IS-weight bounds and aggregation.
 * @returns The loss, its matrix and the clip fraction.
 *
 * @example ρ = 8 is capped at 5: loss = −5·Â·logπ
 * ```ts
 * import { tf } from "../tf.ts";
 * import { assertAllClose } from "../testing/all_close.ts";
 * import { cispoLoss } from "./cispo.ts";
 *
 * const out = cispoLoss({
 *   logProbs: tf.tensor2d([[Math.log(0.8)]]),
 *   oldLogProbs: tf.tensor2d([[Math.log(0.1)]]),
 *   advantages: tf.tensor2d([[2]]),
 *   mask: tf.tensor2d([[1]]),
 * });
 * assertAllClose(out.loss, -5 * 2 * Math.log(0.8));
 * ```
 */
export function cispoLoss(inputs: CispoInputs, options: CispoOptions = {}): CispoResult {
  const { ratioCap = 5, ratioFloor = 0, aggMode = "token-mean", aggOptions } = options;
  if (!(ratioFloor >= 0 && ratioCap > ratioFloor)) {
    throw new RangeError(
      `Cannot compute cispoLoss: need 0 ≤ ratioFloor < ratioCap, current values are ratioFloor ${ratioFloor}, ratioCap ${ratioCap}`,
    );
  }
  const { logProbs, oldLogProbs, advantages, mask } = inputs;
  assertRank(logProbs, 2, "logProbs");
  assertSameShape(logProbs, oldLogProbs, "logProbs", "oldLogProbs");
  assertSameShape(logProbs, advantages, "logProbs", "advantages");
  assertSameShape(logProbs, mask, "logProbs", "mask");
  return tf.tidy(() => {
    const ratio = tf.exp(tf.clipByValue(tf.sub(logProbs, oldLogProbs), -20, 20));
    const weight = stopGradient(tf.clipByValue(ratio, ratioFloor, ratioCap));
    const lossMatrix = tf.neg(tf.mul(tf.mul(weight, advantages), logProbs)) as tf.Tensor2D;
    const loss = aggregateLoss(lossMatrix, mask, aggMode, aggOptions);
    const outside = tf.logicalOr(tf.less(ratio, ratioFloor), tf.greater(ratio, ratioCap));
    const clipFraction = maskedMean(tf.cast(outside, "float32"), mask) as tf.Scalar;
    return { loss, lossMatrix, clipFraction };
  });
}
