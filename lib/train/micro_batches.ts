/**
 * Micro-batching: a minibatch is split into pieces of bounded size (rows ×
 * padded length), gradients are summed across pieces, and every loss is
 * normalised by the whole minibatch's token count (verl's `batch_num_tokens`),
 * so the result equals one big batch while the wasm heap stays bounded.
 *
 * @module
 */
import { tf } from "../tf.ts";
import type { LmSequence } from "./collate.ts";
import { chunksByTokens } from "../model/score.ts";

/**
 * Splits sequences into groups whose padded size (rows × longest length)
 * stays within `maxTokens` (a single longer sequence forms its own group),
 * shortest first: sequences of similar lengths share a group, so little of
 * each group is padding (16 of the default data's teacher turns, 2,048
 * tokens a group: 1.57× their real tokens in arrival order, 1.24× sorted).
 * Every caller sums a token loss over the groups, which the order does not
 * change.
 *
 * Source: verl dynamic batch size (`use_dynamic_bsz`, `ppo_max_token_len_per_gpu`).
 *
 * @param sequences The minibatch.
 * @param maxTokens Padded tokens per micro-batch.
 * @returns Groups, by length (stable among equal lengths).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { splitByTokens } from "./micro_batches.ts";
 *
 * const s = (n: number) => ({ tokens: new Array(n).fill(1), lossMask: new Array(n).fill(1) });
 * assert.deepEqual(splitByTokens([s(30), s(10), s(10)], 40).map((g) => g.length), [2, 1]);
 * ```
 */
export function splitByTokens<T extends LmSequence>(sequences: readonly T[], maxTokens: number): T[][] {
  if (!(Number.isInteger(maxTokens) && maxTokens > 0)) {
    throw new RangeError(`Cannot split: maxTokens must be a positive integer, current value is ${maxTokens}`);
  }
  const sorted = [...sequences].sort((a, b) => a.tokens.length - b.tokens.length);
  return chunksByTokens(sorted, (s) => s.tokens.length, Infinity, maxTokens);
}

/**
 * Splits sequences into an even number of groups of about equal padded size
 * (rows × longest length), shortest first: the fewest groups, a multiple of
 * `multiple`, whose padded sizes all stay within `maxTokens` (or within the
 * longest sequence, if that is longer), cut where the largest group is
 * smallest. With `multiple` 2 a step's pieces share out evenly over two
 * gradient workers, whatever the lengths (cut at `maxTokens` shortest first
 * instead, the first piece is full and the second small, and the worker
 * with the full one takes as long as one thread doing both).
 *
 * ```text
 * ℓ₁ ≤ … ≤ ℓ_n sorted;  cost(i, j) = (j − i) · ℓ_j   (rows i+1 … j padded to ℓ_j)
 * P = the least multiple of `multiple` (≤ n) with  min over cuts of max_group cost ≤ max(maxTokens, ℓ_n)
 * ```
 *
 * Source: verl dynamic batch size (`use_dynamic_bsz`) with balanced micro-batches; the linear partition problem
 * (minimise the largest part of an ordered sequence), solved by dynamic programming.
 *
 * @param sequences The minibatch.
 * @param maxTokens Padded tokens per group at most (unless one sequence is longer).
 * @param multiple The number of groups is a multiple of this (fewer only when there are fewer sequences). @default 2
 * @returns Groups, by length (stable among equal lengths).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { splitBalanced } from "./micro_batches.ts";
 *
 * const s = (n: number) => ({ tokens: new Array(n).fill(1), lossMask: new Array(n).fill(1) });
 * // 6 rows: 2 groups of 3 fit 100 tokens each (3 × 10 and 3 × 30)
 * assert.deepEqual(splitBalanced([s(30), s(10), s(10), s(30), s(10), s(30)], 100).map((g) => g.map((x) => x.tokens.length)), [[10, 10, 10], [30, 30, 30]]);
 * // within 60 tokens: 4 groups
 * assert.deepEqual(splitBalanced([s(30), s(10), s(10), s(30), s(10), s(30)], 60).map((g) => g.length), [3, 1, 1, 1]);
 * ```
 */
export function splitBalanced<T extends LmSequence>(sequences: readonly T[], maxTokens: number, multiple = 2): T[][] {
  if (!(Number.isInteger(maxTokens) && maxTokens > 0)) {
    throw new RangeError(`Cannot split: maxTokens must be a positive integer, current value is ${maxTokens}`);
  }
  if (!(Number.isInteger(multiple) && multiple > 0)) {
    throw new RangeError(`Cannot split: multiple must be a positive integer, current value is ${multiple}`);
  }
  const sorted = [...sequences].sort((a, b) => a.tokens.length - b.tokens.length);
  const n = sorted.length;
  if (n === 0) return [];
  const len = sorted.map((x) => x.tokens.length);
  const cap = Math.max(maxTokens, len[n - 1]!);
  const cost = (i: number, j: number) => (j - i) * len[j - 1]!;
  // best[p][j]: the least largest group of rows 0 … j−1 in p groups; cut[p][j]: where its last group starts
  let best = Array.from({ length: n + 1 }, (_, j) => (j === 0 ? 0 : Infinity));
  const cuts: number[][] = [];
  for (let p = 1; p <= n; p++) {
    const next = new Array<number>(n + 1).fill(Infinity);
    const cut = new Array<number>(n + 1).fill(0);
    for (let j = p; j <= n; j++) {
      for (let i = p - 1; i < j; i++) {
        const v = Math.max(best[i]!, cost(i, j));
        if (v < next[j]!) [next[j], cut[j]] = [v, i];
      }
    }
    best = next;
    cuts.push(cut);
    if ((p % multiple === 0 || p === n) && best[n]! <= cap) break;
  }
  const groups: T[][] = [];
  for (let p = cuts.length, j = n; p > 0; p--) {
    const i = cuts[p - 1]![j]!;
    groups.unshift(sorted.slice(i, j));
    j = i;
  }
  return groups;
}

/**
 * Runs `lossOf` on each piece and sums the gradients (and the returned
 * scalars) over the pieces.
 *
 * ```text
 * g = Σ_pieces ∇ lossOf(piece),   value = Σ_pieces lossOf(piece)
 * ```
 *
 * Source: gradient accumulation (verl micro-batches; `loss.backward()` per micro-batch in MiniMind).
 *
 * @param pieces Inputs of `lossOf` (e.g. collated micro-batches).
 * @param variables The variables to differentiate.
 * @param lossOf A scalar loss of one piece (normalised by the whole minibatch).
 * @returns Summed gradients by variable name and the summed value; new tensors owned by the caller.
 *
 * @example Two halves give the gradient of the whole
 * ```ts
 * import { tf } from "../tf.ts";
 * import { assertAllClose } from "../testing/all_close.ts";
 * import { accumulateGradients } from "./micro_batches.ts";
 *
 * const w = tf.variable(tf.scalar(2), true, "acc_doc_w");
 * const { grads, value } = accumulateGradients([1, 3], [w], (x) => tf.mul(w, x) as tf.Scalar);
 * assertAllClose(grads.acc_doc_w!, 4);
 * assertAllClose(value, 8);
 * w.dispose();
 * ```
 */
export function accumulateGradients<P>(
  pieces: readonly P[],
  variables: readonly tf.Variable[],
  lossOf: (piece: P) => tf.Scalar,
): { grads: tf.NamedTensorMap; value: tf.Scalar } {
  const sum = gradientSum();
  for (const piece of pieces) sum.add(tf.variableGrads(() => lossOf(piece), variables as tf.Variable[]));
  return sum.result();
}

/**
 * Sums gradients (and loss values) already computed per piece, in the
 * order given, as {@linkcode accumulateGradients} sums its own pieces, so the
 * same pieces give the same bits however they were computed (on this thread
 * or in gradient workers).
 *
 * ```text
 * g = ((g_0 + g_1) + g_2) + …,   value = ((0 + v_0) + v_1) + …
 * ```
 *
 * Source: gradient accumulation (as {@linkcode accumulateGradients}).
 *
 * @param pieces Per piece, its gradients by variable name and its loss value; consumed (disposed).
 * @returns Summed gradients by variable name and the summed value; new tensors owned by the caller.
 *
 * @example
 * ```ts
 * import { tf } from "../tf.ts";
 * import { assertAllClose } from "../testing/all_close.ts";
 * import { sumGradients } from "./micro_batches.ts";
 *
 * const piece = (g: number, v: number) => ({ grads: { w: tf.scalar(g) }, value: tf.scalar(v) });
 * const { grads, value } = sumGradients([piece(1, 2), piece(3, 4)]);
 * assertAllClose(grads.w!, 4);
 * assertAllClose(value, 6);
 * tf.dispose([grads.w!, value]);
 * ```
 */
export function sumGradients(
  pieces: readonly { grads: tf.NamedTensorMap; value: tf.Scalar }[],
): { grads: tf.NamedTensorMap; value: tf.Scalar } {
  const sum = gradientSum();
  for (const piece of pieces) sum.add(piece);
  return sum.result();
}

/** The running sum of both: adds one piece (disposing it), then hands over the totals. */
function gradientSum() {
  let grads: tf.NamedTensorMap = {};
  let value: tf.Scalar = tf.scalar(0);
  return {
    add(r: { grads: tf.NamedTensorMap; value: tf.Scalar }): void {
      const next: tf.NamedTensorMap = {};
      for (const [k, g] of Object.entries(r.grads)) {
        const prev = grads[k];
        next[k] = prev === undefined ? g : tf.add(prev, g);
        if (prev !== undefined) {
          prev.dispose();
          g.dispose();
        }
      }
      grads = next;
      const v = tf.add(value, r.value) as tf.Scalar;
      value.dispose();
      r.value.dispose();
      value = v;
    },
    result: () => ({ grads, value }),
  };
}
