/**
 * Stop-gradient (`x.detach()` in PyTorch), which TensorFlow.js lacks.
 *
 * @module
 */
import { tf } from "../tf.ts";

/**
 * The identity in the forward pass with a zero gradient: `sg(x)`.
 *
 * ```text
 * sg(x) = x,   ∂sg(x)/∂x = 0
 * ```
 *
 * Shapes: any → same.
 *
 * Source: used by CISPO (Chen et al. 2025, MiniMax-M1, arXiv:2506.13585,
 * Eq. 4) and by verl's straight-through KL estimators.
 * Reference: `torch.Tensor.detach`.
 *
 * @param x Input tensor.
 * @returns A new tensor owned by the caller, equal to `x`, through which no gradient flows.
 *
 * @example The gradient of x·sg(x) is sg(x), not 2x
 * ```ts
 * import { tf } from "../tf.ts";
 * import { assertAllClose } from "../testing/all_close.ts";
 * import { stopGradient } from "./stop_gradient.ts";
 *
 * const g = tf.grad((x: tf.Tensor) => tf.sum(tf.mul(x, stopGradient(x))))(tf.tensor1d([3]));
 * assertAllClose(g, [3]);
 * ```
 */
export function stopGradient<T extends tf.Tensor>(x: T): T {
  const f = tf.customGrad(
    ((input: tf.Tensor) => ({
      value: tf.clone(input),
      gradFunc: (dy: tf.Tensor) => tf.zerosLike(dy),
    })) as unknown as Parameters<typeof tf.customGrad>[0],
  );
  return f(x) as T;
}
