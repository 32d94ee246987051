/**
 * Global-norm gradient clipping, which TensorFlow.js has no op for.
 *
 * @module
 */
import { tf } from "../tf.ts";

/** Result of {@linkcode clipByGlobalNorm}; new tensors owned by the caller. */
export interface ClipByGlobalNormResult {
  /** The clipped gradients, same keys as the input. */
  grads: tf.NamedTensorMap;
  /** The global norm before clipping, ‖g‖₂ over every tensor (a scalar; reading it is the caller's choice). */
  norm: tf.Scalar;
}

/**
 * Scales every gradient by `min(1, maxNorm / (‖g‖ + 1e-6))`, ‖g‖ the L2 norm
 * of all gradients concatenated. Runs on the device: no host read.
 *
 * ```text
 * ‖g‖ = sqrt(Σ_k Σ_i g_k,i²),   g_k ← g_k · min(1, maxNorm / (‖g‖ + 1e-6))
 * ```
 *
 * A non-finite norm leaves the gradients unscaled (the caller skips such a step).
 *
 * Shapes: any set of tensors.
 *
 * Source: Pascanu et al. 2013 (arXiv:1211.5063) §3.2, Algorithm 1.
 * Reference: `torch.nn.utils.clip_grad_norm_` (same 1e-6).
 *
 * @param grads Gradients by variable name (not disposed).
 * @param maxNorm The largest allowed global norm, > 0.
 * @returns Clipped gradients and the pre-clipping norm.
 *
 * @example A [3, 4] gradient (norm 5) clipped to norm 1
 * ```ts
 * import { tf } from "../tf.ts";
 * import { assertAllClose } from "../testing/all_close.ts";
 * import { clipByGlobalNorm } from "./clip_grad_norm.ts";
 *
 * const { grads, norm } = clipByGlobalNorm({ w: tf.tensor1d([3, 4]) }, 1);
 * assertAllClose(norm, 5, { rtol: 1e-6 });
 * assertAllClose(grads.w!, [0.6, 0.8], { rtol: 1e-5 });
 * ```
 */
export function clipByGlobalNorm(grads: tf.NamedTensorMap, maxNorm: number): ClipByGlobalNormResult {
  if (!(Number.isFinite(maxNorm) && maxNorm > 0)) {
    throw new RangeError(
      `Cannot clip gradients: maxNorm must be a positive finite number, current value is ${maxNorm}`,
    );
  }
  const names = Object.keys(grads);
  return tf.tidy(() => {
    if (names.length === 0) return { grads: {}, norm: tf.scalar(0) };
    // pairwise adds, not tf.addN: tfjs-backend-webgpu 4.22's AddN binds one storage buffer per input and,
    // past the device's limit (8 per stage on lavapipe), silently sums only the first 7 (40 gradients gave a norm of 0)
    const norm = tf.sqrt(names.map((k) => tf.sum(tf.square(grads[k]!))).reduce((a, b) => tf.add(a, b))) as tf.Scalar;
    const scale = tf.where(
      tf.isFinite(norm),
      tf.minimum(1, tf.div(maxNorm, tf.add(norm, 1e-6))),
      tf.onesLike(norm),
    );
    const out: tf.NamedTensorMap = {};
    for (const k of names) out[k] = tf.mul(grads[k]!, scale);
    return { grads: out, norm };
  });
}
