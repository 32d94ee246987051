/**
 * Teacher-forced log-probabilities: old/reference log-probs, the memory
 * reward's P_mem and P_full, and the training forward.
 *
 * @module
 */
import { tf } from "../tf.ts";
import { tokenLogProbs } from "../tensor/log_probs.ts";
import { tokenEntropy } from "../tensor/entropy.ts";
import type { Model } from "./params.ts";
import { disposeFusedWeights, forwardHidden, type FusedWeights, fuseWeights, outputLogits } from "./transformer.ts";

/** A context and the continuation to score after it. */
export interface ScorePair {
  /** Context token ids (≥ 1). */
  context: readonly number[];
  /** Continuation token ids. */
  continuation: readonly number[];
}

/** Options of {@linkcode scoreContinuations}. */
export interface ScoreOptions {
  /** Id used for right padding. */
  padId: number;
  /** Logits are divided by this (match the sampler's). @default 1 */
  temperature?: number;
  /** Sequences per forward pass at most. @default 64 */
  batchSize?: number;
  /** Padded tokens (rows × longest) per forward pass at most: bounds the wasm heap. @default 4096 */
  maxTokens?: number;
  /**
   * Scores each padded batch elsewhere (a worker's copy of the model: `GradientWorkers.scoreBatch`), every batch
   * at once: its `[B, L]` log-probs of `targets` after `tokens` (`sequenceLogProbs` with the fused projections),
   * row-major. The batches are the same, so the same numbers to the bit when it computes that.
   * @default this thread, one batch after the other
   */
  scorer?: (
    batch: { shape: [number, number]; tokens: Int32Array; targets: Int32Array },
    temperature: number,
  ) => Promise<ArrayLike<number>>;
}

/**
 * Log-probabilities `[B, L]` of `targets` after each prefix of `tokens`,
 * with gradient: the training-time forward.
 *
 * ```text
 * out[b, t] = log softmax(logits(tokens[b, ≤ t]) / temperature)[targets[b, t]]
 * ```
 *
 * Shapes: `tokens`, `targets` `[B, L]` int32 → `[B, L]`.
 *
 * Source: Williams 1992 — log π(a_t | s_t) of the sampled actions.
 * Reference: verl `dp_actor._forward_micro_batch` (logits / temperature → log-probs).
 *
 * @param model A policy model.
 * @param tokens Input ids `[B, L]`.
 * @param targets Next-token ids `[B, L]` (tokens shifted left; anything at padded ends).
 * @param temperature Logit temperature.
 * @param fused Concatenated projections for a pass without gradients (`fuseWeights`; same values, fewer kernels).
 * @returns A new `[B, L]` tensor owned by the caller.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { tf } from "../tf.ts";
 * import { modelPreset } from "./config.ts";
 * import { createModel } from "./params.ts";
 * import { sequenceLogProbs } from "./score.ts";
 *
 * const m = createModel(modelPreset("tiny", 20));
 * const lp = sequenceLogProbs(m, tf.tensor2d([[1, 2]], undefined, "int32"), tf.tensor2d([[2, 3]], undefined, "int32"));
 * assert.ok((lp.arraySync() as number[][])[0]!.every((v) => v < 0));
 * m.dispose();
 * ```
 */
export function sequenceLogProbs(
  model: Model,
  tokens: tf.Tensor2D,
  targets: tf.Tensor2D,
  temperature = 1,
  fused?: FusedWeights,
): tf.Tensor2D {
  return tf.tidy(() => {
    const logits = outputLogits(model, forwardHidden(model, tokens, fused && { fused }).hidden);
    return tokenLogProbs(temperature === 1 ? logits : tf.div(logits, temperature), targets);
  });
}

/**
 * Log-probabilities and entropies from one forward (training: the loss needs
 * the first, the metrics the second).
 *
 * ```text
 * logits = forward(tokens) / temperature
 * logProbs[b, t] = log softmax(logits[b, t])[targets[b, t]],   entropy[b, t] = H(softmax(logits[b, t]))
 * ```
 *
 * Shapes: `tokens`, `targets` `[B, L]` → two `[B, L]` tensors.
 *
 * Source: verl `dp_actor._forward_micro_batch(calculate_entropy=True)`.
 *
 * @param model A policy model.
 * @param tokens Input ids `[B, L]`.
 * @param targets Next-token ids `[B, L]`.
 * @param temperature Logit temperature.
 * @returns New tensors owned by the caller.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { tf } from "../tf.ts";
 * import { modelPreset } from "./config.ts";
 * import { createModel } from "./params.ts";
 * import { sequenceLogProbsAndEntropy } from "./score.ts";
 *
 * const m = createModel(modelPreset("tiny", 20));
 * const { entropy } = sequenceLogProbsAndEntropy(m, tf.tensor2d([[1, 2]], undefined, "int32"), tf.tensor2d([[2, 3]], undefined, "int32"));
 * assert.ok((entropy.arraySync() as number[][])[0]!.every((h) => h > 2.9 && h <= Math.log(20) + 1e-5));
 * m.dispose();
 * ```
 */
export function sequenceLogProbsAndEntropy(
  model: Model,
  tokens: tf.Tensor2D,
  targets: tf.Tensor2D,
  temperature = 1,
): { logProbs: tf.Tensor2D; entropy: tf.Tensor2D } {
  return tf.tidy(() => {
    const raw = outputLogits(model, forwardHidden(model, tokens).hidden);
    const logits = temperature === 1 ? raw : tf.div(raw, temperature) as tf.Tensor3D;
    return { logProbs: tokenLogProbs(logits, targets), entropy: tokenEntropy(logits) };
  });
}

/**
 * Teacher-forced log-probs of each continuation given its context, many
 * pairs of different lengths per forward (right padding: causal attention
 * makes the pads invisible to real tokens), no gradient.
 *
 * ```text
 * out[i][j] = log π(continuation_i[j] | context_i + continuation_i[< j])
 *           = logits of position |context_i| − 1 + j, read at continuation_i[j]
 * ```
 *
 * Shapes: `N` pairs → `[N][|continuation_i|]`.
 *
 * Source: the memory reward's P_mem / P_full (MemPO, arXiv:2603.00680) and
 * PPO's old / reference log-probs (Ouyang et al. 2022 §3.5).
 * Reference: verl `compute_log_prob`; MiniMind `train_ppo.py` `logp_pos`.
 *
 * @param model A policy model.
 * @param pairs Contexts and continuations.
 * @param options Padding id, temperature, batch size.
 * @returns Log-probs per continuation token (one host read per batch).
 *
 * @example Scoring a pair alone or next to a longer one gives the same numbers
 * ```ts
 * import { assertAllClose } from "../testing/all_close.ts";
 * import { modelPreset } from "./config.ts";
 * import { createModel } from "./params.ts";
 * import { scoreContinuations } from "./score.ts";
 *
 * const m = createModel(modelPreset("tiny", 20), { seed: 1 });
 * const alone = await scoreContinuations(m, [{ context: [1, 2], continuation: [3, 4] }], { padId: 0 });
 * const both = await scoreContinuations(m, [
 *   { context: [5, 6, 7, 8, 9], continuation: [1] },
 *   { context: [1, 2], continuation: [3, 4] },
 * ], { padId: 0 });
 * assertAllClose(both[1]!, alone[0]!, { rtol: 1e-5, atol: 1e-6 });
 * m.dispose();
 * ```
 */
export async function scoreContinuations(
  model: Model,
  pairs: readonly ScorePair[],
  options: ScoreOptions,
): Promise<number[][]> {
  const { padId, temperature = 1, batchSize = 64, maxTokens = 4096, scorer } = options;
  pairs.forEach((p, i) => {
    if (p.context.length === 0) throw new RangeError(`Cannot score: pairs[${i}].context is empty`);
    if (p.context.length + p.continuation.length > model.config.maxPositions) {
      throw new RangeError(
        `Cannot score: pairs[${i}] has ${
          p.context.length + p.continuation.length
        } tokens, more than maxPositions ${model.config.maxPositions}`,
      );
    }
  });
  // shortest first, so a chunk pads little (a memory reward's full contexts grow with the turn); results in input order
  const size = (i: number) => pairs[i]!.context.length + pairs[i]!.continuation.length;
  const byLength = pairs.map((_, i) => i).sort((a, b) => size(a) - size(b));
  // each batch as padded rows: the same arrays here or on a worker
  const batches = chunksByTokens(byLength, size, batchSize, maxTokens).flatMap((ids) => {
    const chunk = ids.map((i) => pairs[i]!);
    const L = Math.max(...ids.map(size)) - 1;
    if (L <= 0 || chunk.every((p) => p.continuation.length === 0)) return [];
    const seqs = chunk.map((p) => [...p.context, ...p.continuation]);
    const rows = (from: number) => Int32Array.from(seqs.flatMap((s) => pad(s.slice(from, L + from), L, padId)));
    return [{ ids, batch: { shape: [chunk.length, L] as [number, number], tokens: rows(0), targets: rows(1) } }];
  });
  const scored: ArrayLike<number>[] = scorer !== undefined
    ? await Promise.all(batches.map((b) => scorer(b.batch, temperature)))
    : [];
  if (scorer === undefined && batches.length > 0) {
    const fused = fuseWeights(model); // no gradient here: one product for q|k|v and one for gate|up
    try {
      for (const { batch } of batches) {
        const tokens = tf.tensor2d(batch.tokens, batch.shape, "int32");
        const targets = tf.tensor2d(batch.targets, batch.shape, "int32");
        const lp = sequenceLogProbs(model, tokens, targets, temperature, fused);
        scored.push(await lp.data());
        tf.dispose([tokens, targets, lp]);
      }
    } finally {
      disposeFusedWeights(fused);
    }
  }
  const out: number[][] = pairs.map(() => []);
  batches.forEach(({ ids, batch }, k) => {
    const values = scored[k]!;
    const L = batch.shape[1];
    ids.forEach((id, i) => {
      const p = pairs[id]!;
      const first = p.context.length - 1;
      out[id] = Array.from({ length: p.continuation.length }, (_, j) => values[i * L + first + j]!);
    });
  });
  return out;
}

/**
 * Consecutive chunks of at most `maxRows` items whose padded size
 * (rows × longest) stays within `maxTokens` (a longer item is alone).
 *
 * Source: verl dynamic batching by token budget.
 *
 * @param items The items, in order.
 * @param length An item's length in tokens.
 * @param maxRows Items per chunk at most.
 * @param maxTokens Padded tokens per chunk at most.
 * @returns The chunks, in order.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { chunksByTokens } from "./score.ts";
 *
 * assert.deepEqual(chunksByTokens([5, 5, 5, 20], (x) => x, 8, 20).map((c) => c.length), [3, 1]);
 * ```
 */
export function chunksByTokens<T>(
  items: readonly T[],
  length: (item: T) => number,
  maxRows: number,
  maxTokens: number,
): T[][] {
  const chunks: T[][] = [];
  let current: T[] = [];
  let longest = 0;
  for (const item of items) {
    const L = Math.max(longest, length(item));
    if (current.length > 0 && (current.length >= maxRows || L * (current.length + 1) > maxTokens)) {
      chunks.push(current);
      current = [];
    }
    longest = current.length === 0 ? length(item) : L;
    current.push(item);
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

function pad(xs: number[], L: number, id: number): number[] {
  return xs.length >= L ? xs : [...xs, ...new Array(L - xs.length).fill(id)];
}
