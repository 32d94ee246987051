/**
 * Loss aggregation: how a `[B, T]` matrix of per-token losses becomes the
 * scalar that is differentiated. The four modes weigh long and short
 * responses differently; this is where implementations silently disagree.
 *
 * @module
 */
import { tf } from "../tf.ts";
import { maskedSum } from "./masked.ts";
import { assertRank, assertSameShape } from "./shape.ts";

/** How {@linkcode aggregateLoss} reduces `[B, T]` to a scalar. */
export type AggMode =
  | "token-mean"
  | "token-sum"
  | "seq-mean-token-sum"
  | "seq-mean-token-mean"
  | "seq-mean-token-sum-norm";

/** Every {@linkcode AggMode}. */
export const AGG_MODES: readonly AggMode[] = Object.freeze([
  "token-mean",
  "token-sum",
  "seq-mean-token-sum",
  "seq-mean-token-mean",
  "seq-mean-token-sum-norm",
]);

/** Global normalisers of {@linkcode aggregateLoss} (verl's `global_batch_info`). */
export interface AggregateOptions {
  /** Dr.GRPO's constant for `seq-mean-token-sum-norm`. @default T = mask.shape[1] */
  lossScaleFactor?: number;
  /** Valid tokens in the global batch (`token-mean`). @default Σ mask of this call */
  batchNumTokens?: number;
  /** Non-empty sequences in the global batch (`seq-mean-*`). @default non-empty rows of this call */
  globalBatchSize?: number;
  /** Data-parallel workers the batch is split across. @default 1 */
  dpSize?: number;
}

/**
 * Aggregates a per-token loss matrix into a scalar, as verl's `agg_loss`.
 *
 * ```text
 * token-mean              Σ_bt m·L / N_tok · dp                       N_tok = batchNumTokens ?? Σ m
 * token-sum               Σ_bt m·L · dp
 * seq-mean-token-sum      Σ_b∈S (Σ_t m·L) / N_seq · dp               S = rows with Σ_t m > 0
 * seq-mean-token-mean     Σ_b∈S (Σ_t m·L / (Σ_t m + 1e-8)) / N_seq · dp   N_seq = globalBatchSize ?? |S|
 * seq-mean-token-sum-norm seq-mean-token-sum / (lossScaleFactor ?? T)
 * ```
 *
 * Shapes: `lossMatrix`, `mask` `[B, T]` → scalar.
 *
 * Source: Liu et al. 2025, "Understanding R1-Zero-Like Training" (Dr.GRPO,
 * arXiv:2503.20783) §3.1 on the length bias of per-sequence means.
 * Reference: verl `core_algos.py` `agg_loss` (verl-project ≥ 1dda039).
 * Deviations: an empty mask gives 0 rather than verl's 0/0 = NaN in
 * `token-mean` (denominators are clamped to ≥ 1 when not given); TRL and
 * MiniMind `train_grpo` average `seq-mean-token-mean` over all rows, which
 * is this value × (non-empty rows ÷ B).
 *
 * @param lossMatrix Per-token losses `L`, `[B, T]`.
 * @param mask 1 = token counted, `[B, T]`.
 * @param mode The aggregation mode.
 * @param options Global normalisers for data split across workers.
 * @returns A new scalar tensor owned by the caller.
 *
 * @example The same losses under three modes
 * ```ts
 * import { tf } from "../tf.ts";
 * import { assertAllClose } from "../testing/all_close.ts";
 * import { aggregateLoss } from "./aggregate_loss.ts";
 *
 * const L = tf.tensor2d([[1, 2, 3, 4], [5, 6, 7, 8]]);
 * const m = tf.tensor2d([[1, 1, 1, 1], [1, 0, 0, 0]]);
 * assertAllClose(aggregateLoss(L, m, "token-mean"), 15 / 5);
 * assertAllClose(aggregateLoss(L, m, "seq-mean-token-mean"), (2.5 + 5) / 2);
 * assertAllClose(aggregateLoss(L, m, "seq-mean-token-sum-norm"), (10 + 5) / 2 / 4);
 * ```
 */
export function aggregateLoss(
  lossMatrix: tf.Tensor,
  mask: tf.Tensor,
  mode: AggMode,
  options: AggregateOptions = {},
): tf.Scalar {
  assertRank(lossMatrix, 2, "lossMatrix");
  assertSameShape(lossMatrix, mask, "lossMatrix", "mask");
  const { lossScaleFactor, batchNumTokens, globalBatchSize, dpSize = 1 } = options;
  for (const [name, v] of Object.entries({ lossScaleFactor, batchNumTokens, globalBatchSize, dpSize })) {
    if (v !== undefined && !(Number.isFinite(v) && v > 0)) {
      throw new RangeError(
        `Cannot aggregate loss: ${name} must be a positive finite number, current value is ${v}`,
      );
    }
  }
  if (!AGG_MODES.includes(mode)) {
    throw new RangeError(
      `Cannot aggregate loss: mode must be one of ${AGG_MODES.join(", ")}, current value is ${JSON.stringify(mode)}`,
    );
  }
  return tf.tidy(() => {
    switch (mode) {
      case "token-mean": {
        const denom = batchNumTokens ?? tf.maximum(tf.sum(mask), 1);
        return tf.mul(tf.div(maskedSum(lossMatrix, mask), denom), dpSize) as tf.Scalar;
      }
      case "token-sum":
        return tf.mul(maskedSum(lossMatrix, mask), dpSize) as tf.Scalar;
      case "seq-mean-token-sum":
      case "seq-mean-token-sum-norm":
      case "seq-mean-token-mean": {
        const tokens = tf.sum(mask, 1); // [B]
        let seqLosses = maskedSum(lossMatrix, mask, 1); // [B] token-sum
        if (mode === "seq-mean-token-mean") seqLosses = tf.div(seqLosses, tf.add(tokens, 1e-8));
        const nonEmpty = tf.cast(tf.greater(tokens, 0), "float32"); // [B]
        const denom = globalBatchSize ?? tf.maximum(tf.sum(nonEmpty), 1);
        let loss = tf.mul(tf.div(maskedSum(seqLosses, nonEmpty), denom), dpSize);
        if (mode === "seq-mean-token-sum-norm") {
          loss = tf.div(loss, lossScaleFactor ?? mask.shape[1]!);
        }
        return loss as tf.Scalar;
      }
      default: {
        const unreachable: never = mode;
        throw new RangeError(`Unknown aggregation mode ${String(unreachable)}`);
      }
    }
  });
}
