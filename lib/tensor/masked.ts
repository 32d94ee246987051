/**
 * Masked reductions over tensors: every loss in `loss/` reduces through these,
 * so padding, prompt and tool-output tokens never enter a mean.
 *
 * @module
 */
import { tf } from "../tf.ts";
import { assertSameShape } from "./shape.ts";

/**
 * Σ x·mask, with positions where `mask = 0` replaced by 0 first, so a NaN or
 * Inf there cannot leak into the sum (verl `masked_sum`).
 *
 * ```text
 * maskedSum(x, m) = Σ_i [m_i ≠ 0] · x_i · m_i
 * ```
 *
 * Shapes: `x` and `mask` equal (any rank); `axis` reduces only that axis.
 *
 * Source: the masked average of PPO objectives over response tokens,
 * Ouyang et al. 2022 (arXiv:2203.02155) §3.5.
 * Reference: verl `verl/utils/torch_functional.py` `masked_sum`.
 *
 * @param x Values.
 * @param mask 1 = counted, 0 = ignored (any value there, even NaN).
 * @param axis Axis to reduce; all axes when omitted.
 * @returns A new tensor owned by the caller (scalar without `axis`).
 *
 * @example NaN at a masked position is ignored
 * ```ts
 * import { tf } from "../tf.ts";
 * import { assertAllClose } from "../testing/all_close.ts";
 * import { maskedSum } from "./masked.ts";
 *
 * const x = tf.tensor2d([[1, 2, NaN], [4, 5, 6]]);
 * const m = tf.tensor2d([[1, 1, 0], [1, 0, 0]]);
 * assertAllClose(maskedSum(x, m), 7);
 * assertAllClose(maskedSum(x, m, 1), [3, 4]);
 * ```
 */
export function maskedSum(x: tf.Tensor, mask: tf.Tensor, axis?: number): tf.Tensor {
  assertSameShape(x, mask, "x", "mask");
  return tf.tidy(() => {
    const kept = tf.where(tf.notEqual(mask, 0), x, tf.zerosLike(x));
    return tf.sum(tf.mul(kept, mask), axis);
  });
}

/**
 * Σ x·mask / Σ mask, and 0 (not NaN) when the mask is empty.
 *
 * ```text
 * maskedMean(x, m) = maskedSum(x, m) / max(Σ m, 1)
 * ```
 *
 * verl divides by `Σm + 1e-8`; in float32 that is the same number whenever
 * Σm ≥ 1, and both give 0 for an empty mask.
 *
 * Shapes: `x` and `mask` equal (any rank); `axis` reduces only that axis.
 *
 * Source: Ouyang et al. 2022 (arXiv:2203.02155) §3.5 (per-token mean).
 * Reference: verl `verl/utils/torch_functional.py` `masked_mean`; MiniMind
 * `train_ppo.py` (`.sum() / mask.sum().clamp(min=1)`).
 *
 * @param x Values.
 * @param mask 1 = counted, 0 = ignored.
 * @param axis Axis to reduce; all axes when omitted.
 * @returns A new tensor owned by the caller (scalar without `axis`).
 *
 * @example Mean over the unmasked tokens only
 * ```ts
 * import { tf } from "../tf.ts";
 * import { assertAllClose } from "../testing/all_close.ts";
 * import { maskedMean } from "./masked.ts";
 *
 * const x = tf.tensor2d([[1, 2, 100], [4, 5, 6]]);
 * const m = tf.tensor2d([[1, 1, 0], [1, 0, 0]]);
 * assertAllClose(maskedMean(x, m), 7 / 3);
 * assertAllClose(maskedMean(x, tf.zerosLike(m)), 0);
 * ```
 */
export function maskedMean(x: tf.Tensor, mask: tf.Tensor, axis?: number): tf.Tensor {
  assertSameShape(x, mask, "x", "mask");
  return tf.tidy(() => tf.div(maskedSum(x, mask, axis), tf.maximum(tf.sum(mask, axis), 1)));
}
