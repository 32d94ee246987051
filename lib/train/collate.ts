/**
 * The one boundary from plain arrays to training tensors: token rows with a
 * per-token loss mask become `tokens`, `targets`, `mask` `[B, L]` (right
 * padded), aligned so that position t predicts token t + 1.
 *
 * @module
 */
import { tf } from "../tf.ts";

/** One training sequence: ids and 1/0 per id (1 = learn to produce this token). */
export interface LmSequence {
  /** Token ids (context followed by the tokens to learn). */
  tokens: readonly number[];
  /** 1 where the token is a policy/assistant token, same length as `tokens`. */
  lossMask: readonly number[];
  /** Optional per-token float values (advantages, old log-probs, …) aligned with `tokens`. */
  extras?: Record<string, readonly number[]>;
}

/** Tensors of a collated batch, all `[B, L]`; dispose with {@linkcode disposeLmBatch}. */
export interface LmBatch {
  /** Input ids (int32). */
  tokens: tf.Tensor2D;
  /** Next-token ids (int32): `targets[b, t] = tokens[b, t + 1]`. */
  targets: tf.Tensor2D;
  /** 1 where `targets[b, t]` is learned: `lossMask[b][t + 1]`. */
  mask: tf.Tensor2D;
  /** Each extra, shifted like the mask (`extra[b][t + 1]`). */
  extras: Record<string, tf.Tensor2D>;
  /** Number of learned tokens (Σ mask). */
  numTokens: number;
}

/**
 * Collates sequences into right-padded, shifted training tensors.
 *
 * ```text
 * L = max |tokens| − 1
 * tokens[b, t] = s_b[t],  targets[b, t] = s_b[t + 1],  mask[b, t] = lossMask_b[t + 1]   (0 on padding)
 * ```
 *
 * Shapes: `B` sequences → `[B, L]` tensors.
 *
 * Source: next-token prediction with a loss mask on assistant tokens (MiniMind `SFTDataset`).
 *
 * @param sequences Token rows with loss masks (and extras).
 * @param padId Padding id.
 * @returns New tensors owned by the caller.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { collateLm, disposeLmBatch } from "./collate.ts";
 *
 * const b = collateLm([{ tokens: [5, 6, 7], lossMask: [0, 1, 1] }, { tokens: [8, 9], lossMask: [0, 1] }], 0);
 * assert.deepEqual(b.targets.arraySync(), [[6, 7], [9, 0]]);
 * assert.deepEqual(b.mask.arraySync(), [[1, 1], [1, 0]]);
 * disposeLmBatch(b);
 * ```
 */
export function collateLm(sequences: readonly LmSequence[], padId: number): LmBatch {
  if (sequences.length === 0) throw new RangeError("Cannot collate an empty batch");
  sequences.forEach((s, i) => {
    if (s.tokens.length < 2) {
      throw new RangeError(`Cannot collate: sequences[${i}] has ${s.tokens.length} tokens, need ≥ 2`);
    }
    if (s.lossMask.length !== s.tokens.length) {
      throw new TypeError(
        `Cannot collate: sequences[${i}].lossMask has length ${s.lossMask.length}, tokens has ${s.tokens.length}`,
      );
    }
  });
  const B = sequences.length;
  const L = Math.max(...sequences.map((s) => s.tokens.length)) - 1;
  const tokens = new Int32Array(B * L).fill(padId);
  const targets = new Int32Array(B * L).fill(padId);
  const mask = new Float32Array(B * L);
  const extraNames = Object.keys(sequences[0]!.extras ?? {});
  const extras = Object.fromEntries(extraNames.map((k) => [k, new Float32Array(B * L)]));
  let numTokens = 0;
  sequences.forEach((s, b) => {
    for (let t = 0; t + 1 < s.tokens.length; t++) {
      tokens[b * L + t] = s.tokens[t]!;
      targets[b * L + t] = s.tokens[t + 1]!;
      mask[b * L + t] = s.lossMask[t + 1]!;
      numTokens += s.lossMask[t + 1]!;
      for (const k of extraNames) extras[k]![b * L + t] = s.extras?.[k]?.[t + 1] ?? 0;
    }
  });
  return {
    tokens: tf.tensor2d(tokens, [B, L], "int32"),
    targets: tf.tensor2d(targets, [B, L], "int32"),
    mask: tf.tensor2d(mask, [B, L]),
    extras: Object.fromEntries(Object.entries(extras).map(([k, v]) => [k, tf.tensor2d(v, [B, L])])),
    numTokens,
  };
}

/**
 * Frees a batch made by {@linkcode collateLm}.
 *
 * Source: house style M4 (collate creates training tensors, disposeBatch frees them).
 *
 * @param batch The batch.
 * @returns Nothing.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { tf } from "../tf.ts";
 * import { collateLm, disposeLmBatch } from "./collate.ts";
 *
 * const before = tf.memory().numTensors;
 * const batch = collateLm([{ tokens: [1, 2], lossMask: [0, 1] }], 0);
 * assert.ok(tf.memory().numTensors > before);
 * disposeLmBatch(batch);
 * assert.equal(tf.memory().numTensors, before);
 * ```
 */
export function disposeLmBatch(batch: LmBatch): void {
  tf.dispose([batch.tokens, batch.targets, batch.mask, ...Object.values(batch.extras)]);
}
