/**
 * Matrix products whose gradients use explicit transposes: on the wasm
 * backend only a flag-free, batch-1 `matMul` runs on XNNPACK (tensorflow/tfjs
 * PR #2532), so one with `transposeA`/`transposeB` is far slower than
 * `transpose` then a flag-free `matMul`, and the built-in gradient uses the
 * flags (docs/performance.md#speed-levers).
 *
 * @module
 */
import { tf } from "../tf.ts";
import { PIECE_MATMUL_KERNEL } from "../wasm/wasm_kernels.ts";

const dense2d = tf.customGrad(
  ((x: tf.Tensor2D, w: tf.Tensor2D, save: tf.GradSaveFunc) => {
    save([x, w]);
    return {
      value: tf.matMul(x, w),
      gradFunc: (dy: tf.Tensor2D, saved: tf.Tensor[]) => {
        const [xs, ws] = saved as [tf.Tensor2D, tf.Tensor2D];
        return [tf.matMul(dy, tf.transpose(ws)), tf.matMul(tf.transpose(xs), dy)];
      },
    };
  }) as unknown as Parameters<typeof tf.customGrad>[0],
);

const batchMatMul = tf.customGrad(
  ((a: tf.Tensor3D, b: tf.Tensor3D, save: tf.GradSaveFunc) => {
    save([a, b]);
    return {
      value: tf.matMul(a, b),
      gradFunc: (dy: tf.Tensor3D, saved: tf.Tensor[]) => {
        const [as, bs] = saved as [tf.Tensor3D, tf.Tensor3D];
        return [tf.matMul(dy, tf.transpose(bs, [0, 2, 1])), tf.matMul(tf.transpose(as, [0, 2, 1]), dy)];
      },
    };
  }) as unknown as Parameters<typeof tf.customGrad>[0],
);

/**
 * `a[n] · b[n]` as N flag-free 2-D products (wasm's fast path), read and written in place in the batch tensors
 * (`PIECE_MATMUL_KERNEL`; the same values as unstacking, N `matMul`s and a stack); no gradient of its own.
 */
function pieceProducts(a: tf.Tensor3D, b: tf.Tensor3D): tf.Tensor3D {
  return tf.engine().runKernel(PIECE_MATMUL_KERNEL, { a, b }) as tf.Tensor3D;
}

// one gradient for the whole batch: each operand is transposed once as a 3-D tensor (not once per
// piece), and the pieces take no tape node of their own
const pieceBatchMatMul = tf.customGrad(
  ((a: tf.Tensor3D, b: tf.Tensor3D, save: tf.GradSaveFunc) => {
    save([a, b]);
    return {
      value: pieceProducts(a, b),
      gradFunc: (dy: tf.Tensor3D, saved: tf.Tensor[]) => {
        const [as, bs] = saved as [tf.Tensor3D, tf.Tensor3D];
        return [
          pieceProducts(dy, tf.transpose(bs, [0, 2, 1])),
          pieceProducts(tf.transpose(as, [0, 2, 1]), dy),
        ];
      },
    };
  }) as unknown as Parameters<typeof tf.customGrad>[0],
);

// a · bᵀ by pieces with the gradient of b as ∂yᵀ · a ([S, T] · [T, K] pieces), not as the gradient of a transposed
// b ((aᵀ ∂y)ᵀ: [K, T] · [T, S] pieces, whose few rows XNNPACK runs 2.6× slower); the same sums in the same order,
// so the same bits (tests/model/dense_test.ts)
const pieceBatchMatMulT = tf.customGrad(
  ((a: tf.Tensor3D, b: tf.Tensor3D, save: tf.GradSaveFunc) => {
    save([a, b]);
    return {
      value: pieceProducts(a, tf.transpose(b, [0, 2, 1])),
      gradFunc: (dy: tf.Tensor3D, saved: tf.Tensor[]) => {
        const [as, bs] = saved as [tf.Tensor3D, tf.Tensor3D];
        return [pieceProducts(dy, bs), pieceProducts(tf.transpose(dy, [0, 2, 1]), as)];
      },
    };
  }) as unknown as Parameters<typeof tf.customGrad>[0],
);

/**
 * `x · w` over the last axis of `x`, with a flag-free gradient.
 *
 * ```text
 * y = x W,   ∂L/∂x = (∂L/∂y) transpose(W),   ∂L/∂W = transpose(x) (∂L/∂y)
 * ```
 *
 * Shapes: `x [..., D]`, `w [D, F]` → `[..., F]`.
 *
 * Source: this package's speed levers (docs/performance.md#speed-levers:
 * dense layers through `tf.customGrad` with explicit transposes); XNNPACK's
 * flag-free path in TF.js wasm (https://github.com/tensorflow/tfjs/pull/2532).
 *
 * @param x Input, any rank ≥ 2.
 * @param w Weight `[D, F]` (no bias: the model has none).
 * @returns A new tensor owned by the caller.
 *
 * @example Same values and gradients as tf.matMul
 * ```ts
 * import { tf } from "../tf.ts";
 * import { assertAllClose } from "../testing/all_close.ts";
 * import { dense } from "./dense.ts";
 *
 * const x = tf.tensor2d([[1, 2]]);
 * const w = tf.tensor2d([[1, 0, 2], [0, 1, 3]]);
 * assertAllClose(dense(x, w), [[1, 2, 8]]);
 * assertAllClose(tf.grad((v: tf.Tensor) => tf.sum(dense(x, v as tf.Tensor2D)))(w), [[1, 1, 1], [2, 2, 2]]);
 * ```
 */
export function dense(x: tf.Tensor, w: tf.Tensor2D): tf.Tensor {
  const D = x.shape[x.rank - 1]!;
  if (w.shape[0] !== D) {
    throw new TypeError(`dense: w must have shape [${D}, F] to match x [..., ${D}], current shape is [${w.shape}]`);
  }
  if (x.rank === 2) return dense2d(x, w);
  return tf.tidy(() => {
    const lead = x.shape.slice(0, -1);
    const y = dense2d(tf.reshape(x, [-1, D]) as tf.Tensor2D, w);
    return tf.reshape(y, [...lead, w.shape[1]]);
  });
}

/**
 * Batched `a · b` with a flag-free gradient (attention scores and values).
 *
 * ```text
 * y[n] = a[n] b[n],   ∂a = ∂y bᵀ,   ∂b = aᵀ ∂y      (explicit transposes)
 * ```
 *
 * On wasm only flag-free batch-1 (2-D) products take the fast XNNPACK path,
 * so there the batch runs as N 2-D products that read and write the batch
 * tensors in place (`MempoPieceMatMul`, see `wasm/wasm_kernels.ts`): 5×
 * faster than one batched product for 32 heads × 256 tokens; products
 * smaller than {@linkcode MIN_PIECE_PRODUCT} per item stay one batched
 * product. Other backends use one batched product.
 *
 * Shapes: `a [N, M, K]`, `b [N, K, P]` → `[N, M, P]`.
 *
 * Source: this package's speed levers (docs/performance.md#speed-levers: attention as per-head 2-D products, the
 * only ones wasm's XNNPACK path takes, https://github.com/tensorflow/tfjs/pull/2532).
 *
 * @param a Left factor.
 * @param b Right factor.
 * @returns A new tensor owned by the caller.
 *
 * @example
 * ```ts
 * import { tf } from "../tf.ts";
 * import { assertAllClose } from "../testing/all_close.ts";
 * import { bmm } from "./dense.ts";
 *
 * assertAllClose(bmm(tf.tensor3d([[[1, 2]]]), tf.tensor3d([[[3], [4]]])), [[[11]]]);
 * ```
 */
export function bmm(a: tf.Tensor3D, b: tf.Tensor3D): tf.Tensor3D {
  const [, M, K] = a.shape;
  const pieces = tf.getBackend() === "wasm" && M * K * b.shape[2] >= MIN_PIECE_PRODUCT;
  return (pieces ? pieceBatchMatMul(a, b) : batchMatMul(a, b)) as tf.Tensor3D;
}

/**
 * Batched `a · bᵀ` (attention scores `q kᵀ`) with a flag-free gradient, as
 * {@linkcode bmm} of `a` and `b` transposed, in value and gradient to the
 * bit; on wasm's pieces the gradient of `b` runs as `∂yᵀ · a` (tall pieces,
 * XNNPACK's fast shape) instead of `aᵀ · ∂y` transposed.
 *
 * ```text
 * y[n] = a[n] b[n]ᵀ,   ∂a = ∂y b,   ∂b = ∂yᵀ a
 * ```
 *
 * Shapes: `a [N, M, K]`, `b [N, P, K]` → `[N, M, P]`.
 *
 * Source: this package (the key gradient's shape measured in `bench/profile.ts`: `[32, 256] · [256, 256]`
 * pieces 0.88 ms each on one thread, `[256, 256] · [256, 32]` 0.34 ms).
 *
 * @param a Left factor.
 * @param b Right factor, transposed in the product.
 * @returns A new tensor owned by the caller.
 *
 * @example
 * ```ts
 * import { tf } from "../tf.ts";
 * import { assertAllClose } from "../testing/all_close.ts";
 * import { bmmTransposed } from "./dense.ts";
 *
 * assertAllClose(bmmTransposed(tf.tensor3d([[[1, 2]]]), tf.tensor3d([[[3, 4], [5, 6]]])), [[[11, 17]]]);
 * ```
 */
export function bmmTransposed(a: tf.Tensor3D, b: tf.Tensor3D): tf.Tensor3D {
  const [, M, K] = a.shape;
  if (tf.getBackend() === "wasm" && M * K * b.shape[1] >= MIN_PIECE_PRODUCT) {
    return pieceBatchMatMulT(a, b) as tf.Tensor3D;
  }
  return tf.tidy(() => batchMatMul(a, tf.transpose(b, [0, 2, 1])) as tf.Tensor3D);
}

/**
 * On wasm, the smallest product `M·K·N` per batch item that goes through N
 * 2-D pieces (XNNPACK); smaller ones run as one batched product (the
 * backend's own loop). Measured on the model's attention (head size 32, one
 * thread): at T = 21 tokens one batched product made a training step 1.7×
 * faster (600 → 345 ms, 32 rows), at T = 64 the pieces were 1.25× faster
 * (660 → 520 ms, 16 rows); a piece also costs a wake-up of XNNPACK's other
 * threads, so with two threads tiny pieces lose more. The choice depends on
 * shapes only, never on the thread count, so threads never change a result.
 */
export const MIN_PIECE_PRODUCT = 65536;
