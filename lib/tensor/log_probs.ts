/**
 * Per-token log-probabilities of chosen tokens: the quantity every policy
 * gradient loss is built from.
 *
 * @module
 */
import { tf } from "../tf.ts";
import { assertRank } from "./shape.ts";

/**
 * log π(target | context) at every position: log-softmax over the vocabulary,
 * read at the target id.
 *
 * ```text
 * logProbs[b, t] = logits[b, t, y] − log Σ_v exp(logits[b, t, v]),   y = targets[b, t]
 * ```
 *
 * The read is a 1-D `gather` on the flattened `[B·T·V]` log-softmax at
 * `(b·T + t)·V + y`, never a `batchDims` gather (wrong values on wasm in
 * TF.js 4.22: https://github.com/tensorflow/tfjs/issues/8658). Its gradient
 * goes through `UnsortedSegmentSum`, which the package registers for wasm
 * (lib/wasm/wasm_kernels.ts).
 *
 * Shapes: `logits [B, T, V]`, `targets [B, T]` (int ids) → `[B, T]`.
 *
 * Source: Williams 1992 (REINFORCE) — the score function ∇ log π(a|s).
 * Reference: verl `verl/utils/torch_functional.py` `logprobs_from_logits`;
 * MiniMind `F.log_softmax(logits).gather(2, labels)`.
 *
 * @param logits Unnormalised scores `[B, T, V]`.
 * @param targets Token ids `[B, T]`, as an int32 tensor or nested array.
 * @returns A new `[B, T]` tensor owned by the caller.
 *
 * @example Uniform logits give log(1/V)
 * ```ts
 * import { tf } from "../tf.ts";
 * import { assertAllClose } from "../testing/all_close.ts";
 * import { tokenLogProbs } from "./log_probs.ts";
 *
 * const logits = tf.tensor3d([[[0, 0, 0, 0], [0, Math.log(3), 0, 0]]]);
 * assertAllClose(tokenLogProbs(logits, [[2, 1]]), [[Math.log(1 / 4), Math.log(3 / 6)]]);
 * ```
 */
export function tokenLogProbs(
  logits: tf.Tensor,
  targets: tf.Tensor | readonly (readonly number[])[],
): tf.Tensor2D {
  assertRank(logits, 3, "logits");
  const [B, T, V] = logits.shape as [number, number, number];
  return tf.tidy(() => {
    const ids = targets instanceof tf.Tensor
      ? tf.cast(targets, "int32")
      : tf.tensor2d(targets.map((r) => Array.from(r)), undefined, "int32");
    if (ids.rank !== 2 || ids.shape[0] !== B || ids.shape[1] !== T) {
      throw new TypeError(
        `targets must have shape [${B}, ${T}] to match logits [${B}, ${T}, ${V}], current shape is [${
          ids.shape.join(", ")
        }]`,
      );
    }
    const flatIndex = tf.add(tf.mul(tf.range(0, B * T, 1, "int32"), tf.scalar(V, "int32")), tf.reshape(ids, [B * T]));
    const logSoftmax = tf.reshape(tf.logSoftmax(logits), [B * T * V]);
    return tf.reshape(tf.gather(logSoftmax, flatIndex), [B, T]) as tf.Tensor2D;
  });
}
