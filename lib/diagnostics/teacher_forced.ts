/**
 * Teacher-forced greedy accuracy at chosen positions of chosen sequences: the
 * one forward loop every probe of `diagnostics/` shares.
 *
 * @module
 */
import { tf } from "../tf.ts";
import type { Tokenizer } from "../text/tokenizer.ts";
import type { Model } from "../model/params.ts";
import { forwardLogits } from "../model/transformer.ts";
import { chunksByTokens } from "../model/score.ts";
import { collateLm, disposeLmBatch, type LmSequence } from "../train/collate.ts";

/** Hits of one key: greedy predictions equal to the sequence's token, and positions scored. */
export interface Hits {
  /** Positions where the argmax of p(· | x_<i) is x_i. */
  correct: number;
  /** Positions scored. */
  total: number;
}

/**
 * Teacher-forced greedy hits at keyed positions, summed per key: one forward
 * per chunk of right-padded sequences (causal: padding never changes an
 * earlier position).
 *
 * ```text
 * hits[key] = #{ (s, i) : key(s, i) = key, argmax p(· | s_<i) = s_i },   total[key] = #{ (s, i) : key(s, i) = key }
 * ```
 *
 * Source: this package (the probes of `copy_diagnostic.ts` and `step_diagnostic.ts`).
 *
 * @param model The policy.
 * @param tokenizer Its tokenizer (the padding id).
 * @param items Sequences with the positions to score (index ≥ 1) and each position's key.
 * @returns Hits per key (keys with no position are absent).
 *
 * @example A random tiny model predicts a keyed position or not, and counts it once
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildTokenizer, encode } from "../text/tokenizer.ts";
 * import { modelPreset } from "../model/config.ts";
 * import { createModel } from "../model/params.ts";
 * import { teacherForcedHits } from "./teacher_forced.ts";
 *
 * const tok = buildTokenizer(["a b c"]);
 * const model = createModel(modelPreset("tiny", tok.size), { seed: 1 });
 * const ids = encode(tok, "a b c").ids;
 * const hits = await teacherForcedHits(model, tok, [{ s: { tokens: ids, lossMask: [0, 1, 1] }, keys: [[1, "x"], [2, "x"]] }]);
 * assert.equal(hits.get("x")!.total, 2);
 * model.dispose();
 * ```
 */
export async function teacherForcedHits(
  model: Model,
  tokenizer: Tokenizer,
  items: readonly { s: LmSequence; keys: [number, string][] }[],
): Promise<Map<string, Hits>> {
  const hits = new Map<string, Hits>();
  const keyed = items.filter((x) => x.keys.length > 0);
  for (const chunk of chunksByTokens(keyed, (x) => x.s.tokens.length, 32, 4096)) {
    const batch = collateLm(chunk.map((x) => x.s), tokenizer.padId);
    const argmax = tf.tidy(() => tf.argMax(forwardLogits(model, batch.tokens), -1));
    const predicted = await argmax.data();
    const L = batch.tokens.shape[1];
    argmax.dispose();
    disposeLmBatch(batch);
    chunk.forEach(({ s, keys }, b) => {
      for (const [i, key] of keys) {
        const h = hits.get(key) ?? { correct: 0, total: 0 };
        h.correct += predicted[b * L + i - 1] === s.tokens[i] ? 1 : 0;
        h.total += 1;
        hits.set(key, h);
      }
    });
  }
  return hits;
}
