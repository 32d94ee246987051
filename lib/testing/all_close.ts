/**
 * `assertAllClose`: the package's numeric assertion, used by tests, JSDoc
 * examples and notebooks (JSR's `@std/assert` is not reachable here).
 *
 * @module
 */
import { tf } from "../tf.ts";

/** Something {@linkcode assertAllClose} can compare: numbers, nested arrays or tensors. */
export type Numeric = number | readonly Numeric[] | tf.Tensor;

/** Tolerances of {@linkcode assertAllClose}. */
export interface AllCloseOptions {
  /** Relative tolerance. @default 1e-6 for arrays, 1e-5 when either side is a tensor (float32). */
  rtol?: number;
  /** Absolute tolerance. @default 1e-9 for arrays, 1e-6 when either side is a tensor. */
  atol?: number;
  /** Prefix for the error message. */
  msg?: string;
}

function toPlain(x: Numeric): number | unknown[] {
  if (x instanceof tf.Tensor) return x.arraySync() as number | unknown[];
  return x as number | unknown[];
}

function compare(
  actual: unknown,
  expected: unknown,
  path: string,
  rtol: number,
  atol: number,
): string | undefined {
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return `${path}: expected an array, got ${String(actual)}`;
    if (actual.length !== expected.length) {
      return `${path}: expected length ${expected.length}, got ${actual.length}`;
    }
    for (let i = 0; i < expected.length; i++) {
      const err = compare(actual[i], expected[i], `${path}[${i}]`, rtol, atol);
      if (err !== undefined) return err;
    }
    return undefined;
  }
  if (typeof actual !== "number" || typeof expected !== "number") {
    return `${path}: expected ${String(expected)}, got ${String(actual)}`;
  }
  if (Number.isNaN(expected)) {
    return Number.isNaN(actual) ? undefined : `${path}: expected NaN, got ${actual}`;
  }
  if (actual === expected) return undefined;
  const tol = Math.max(rtol * Math.abs(expected), atol);
  if (!(Math.abs(actual - expected) <= tol)) {
    return `${path}: expected ${expected}, got ${actual} (|diff| ${Math.abs(actual - expected)} > tolerance ${tol})`;
  }
  return undefined;
}

/**
 * Asserts `|actual − expected| ≤ max(rtol·|expected|, atol)` element by element.
 *
 * ```text
 * pass ⇔ ∀i: |a_i − e_i| ≤ max(rtol·|e_i|, atol)      (NaN equals NaN)
 * ```
 *
 * Shapes must match exactly. Tensors are read with `arraySync` (not disposed).
 *
 * Source: this package's equality (docs/equivalence.md#what-equal-means: rtol 1e-6 / atol 1e-9 arrays, 1e-5 / 1e-6
 * float32 tensors).
 * Reference: `numpy.testing.assert_allclose` (but with max(), not a sum, of tolerances).
 *
 * @param actual The computed value.
 * @param expected The reference value.
 * @param options Tolerances and a message prefix.
 * @returns Nothing; throws an `Error` naming the first mismatching index.
 *
 * @example Passing and failing comparisons
 * ```ts
 * import assert from "node:assert/strict";
 * import { assertAllClose } from "./all_close.ts";
 *
 * assertAllClose([[1, 2], [3, 4 + 1e-12]], [[1, 2], [3, 4]]);
 * assert.throws(() => assertAllClose([1, 2.1], [1, 2]), /\[1\]: expected 2, got 2.1/);
 * ```
 */
export function assertAllClose(
  actual: Numeric,
  expected: Numeric,
  options: AllCloseOptions = {},
): void {
  const isTensor = actual instanceof tf.Tensor || expected instanceof tf.Tensor;
  const { rtol = isTensor ? 1e-5 : 1e-6, atol = isTensor ? 1e-6 : 1e-9, msg } = options;
  const err = compare(toPlain(actual), toPlain(expected), "value", rtol, atol);
  if (err !== undefined) throw new Error(msg === undefined ? err : `${msg}: ${err}`);
}
