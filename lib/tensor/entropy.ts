/**
 * Per-token entropy of the policy's next-token distribution.
 *
 * @module
 */
import { tf } from "../tf.ts";
import { assertRank } from "./shape.ts";

/**
 * Shannon entropy of softmax(logits) at every position.
 *
 * ```text
 * H[b, t] = − Σ_v p_v log p_v,   p = softmax(logits[b, t, :])
 * ```
 *
 * Shapes: `logits [B, T, V]` → `[B, T]`.
 *
 * Source: Mnih et al. 2016 (A3C, arXiv:1602.01783) §4, entropy regularisation.
 * Reference: verl `verl/utils/torch_functional.py` `entropy_from_logits`
 * (logsumexp − Σ p·logits, the same value).
 *
 * @param logits Unnormalised scores `[B, T, V]`.
 * @returns A new `[B, T]` tensor owned by the caller.
 *
 * @example Uniform over 4 tokens has entropy log 4; a peaked one about 0
 * ```ts
 * import { tf } from "../tf.ts";
 * import { assertAllClose } from "../testing/all_close.ts";
 * import { tokenEntropy } from "./entropy.ts";
 *
 * const logits = tf.tensor3d([[[0, 0, 0, 0], [50, 0, 0, 0]]]);
 * assertAllClose(tokenEntropy(logits), [[Math.log(4), 0]], { atol: 1e-6 });
 * ```
 */
export function tokenEntropy(logits: tf.Tensor): tf.Tensor2D {
  assertRank(logits, 3, "logits");
  return tf.tidy(() => {
    const logp = tf.logSoftmax(logits);
    return tf.neg(tf.sum(tf.mul(tf.exp(logp), logp), -1)) as tf.Tensor2D;
  });
}
