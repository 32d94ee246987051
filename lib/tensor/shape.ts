/**
 * Shape checks shared by `tensor/` and `loss/`: every public tensor function
 * validates its inputs here, with messages that name the argument.
 *
 * @module
 */
import { tf } from "../tf.ts";

function fmt(shape: readonly number[]): string {
  return `[${shape.join(", ")}]`;
}

/**
 * Throws a `TypeError` unless `a` and `b` have the same shape.
 *
 * Source: Deno style guide, error messages ("Cannot …, current value is …").
 *
 * @param a First tensor.
 * @param b Second tensor.
 * @param nameA Name of `a` in the error message.
 * @param nameB Name of `b` in the error message.
 * @returns Nothing.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { tf } from "../tf.ts";
 * import { assertSameShape } from "./shape.ts";
 *
 * const a = tf.zeros([2, 3]);
 * const b = tf.zeros([2, 4]);
 * assert.throws(() => assertSameShape(a, b, "logProbs", "mask"), /mask must have shape \[2, 3\]/);
 * tf.dispose([a, b]);
 * ```
 */
export function assertSameShape(a: tf.Tensor, b: tf.Tensor, nameA: string, nameB: string): void {
  if (a.shape.length !== b.shape.length || a.shape.some((d, i) => d !== b.shape[i])) {
    throw new TypeError(
      `Cannot combine ${nameA} and ${nameB}: ${nameB} must have shape ${fmt(a.shape)} like ${nameA}, current shape is ${
        fmt(b.shape)
      }`,
    );
  }
}

/**
 * Throws a `TypeError` unless `x` has the given rank.
 *
 * Source: Deno style guide, error messages.
 *
 * @param x The tensor.
 * @param rank The expected number of dimensions.
 * @param name Name of `x` in the error message.
 * @returns Nothing.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { tf } from "../tf.ts";
 * import { assertRank } from "./shape.ts";
 *
 * const x = tf.zeros([4]);
 * assert.throws(() => assertRank(x, 2, "logProbs"), /logProbs must be rank 2 \(\[B, T\]\), current shape is \[4\]/);
 * x.dispose();
 * ```
 */
export function assertRank(x: tf.Tensor, rank: number, name: string): void {
  if (x.rank !== rank) {
    const letters = ["B", "T", "V"].slice(0, rank).join(", ");
    throw new TypeError(
      `${name} must be rank ${rank} ([${letters}]), current shape is ${fmt(x.shape)}`,
    );
  }
}
