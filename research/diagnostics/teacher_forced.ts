/**
 * Teacher-forced greedy accuracy at chosen positions of chosen sequences: the
 * one forward loop every probe of `diagnostics/` shares.
 *
 * @module
 */
import { tf } from "../../lib/tf.ts";
import type { Tokenizer } from "../../lib/text/tokenizer.ts";
import type { Model } from "../../lib/model/params.ts";
import {
  disposeFusedWeights,
  forwardHidden,
  fuseWeights,
  outputLogits,
  outputProjection,
} from "../../lib/model/transformer.ts";
import { chunksByTokens } from "../../lib/model/score.ts";
import { collateLm, disposeLmBatch, type LmSequence } from "../../lib/train/collate.ts";

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
 * earlier position), with the weights fused as for any pass without
 * gradients (`fuseWeights`: the same values, bit for bit).
 *
 * ```text
 * hits[key] = #{ (s, i) : key(s, i) = key, argmax p(· | s_<i) = s_i },   total[key] = #{ (s, i) : key(s, i) = key }
 * ```
 *
 * Source: this package (the probes of `copy_diagnostic.ts` and `step_diagnostic.ts`).
 *
 * @param model The policy.
 * @param tokenizer Its tokenizer (the padding id).
 * @param items Sequences with the positions to score (1 ≤ index < length: position 0 has no prefix) and each
 *   position's key.
 * @returns Hits per key (keys with no position are absent).
 *
 * @example A random tiny model predicts a keyed position or not, and counts it once
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildTokenizer, encode } from "../../lib/text/tokenizer.ts";
 * import { modelPreset } from "../../lib/model/config.ts";
 * import { createModel } from "../../lib/model/params.ts";
 * import { teacherForcedHits } from "./teacher_forced.ts";
 *
 * const tok = buildTokenizer(["a b c"]);
 * const model = createModel(modelPreset("tiny", tok.size), { seed: 1 });
 * const ids = encode(tok, "a b c").ids;
 * const hits = await teacherForcedHits(model, tok, [{ s: { tokens: ids, lossMask: [0, 1, 1] }, keys: [[1, "x"], [2, "x"]] }]);
 * assert.equal(hits.get("x")!.total, 2);
 * await assert.rejects(teacherForcedHits(model, tok, [{ s: { tokens: ids, lossMask: [1, 1, 1] }, keys: [[0, "x"]] }]), /position 0/);
 * model.dispose();
 * ```
 */
export async function teacherForcedHits(
  model: Model,
  tokenizer: Tokenizer,
  items: readonly { s: LmSequence; keys: [number, string][] }[],
): Promise<Map<string, Hits>> {
  items.forEach(({ s, keys }, n) => {
    for (const [i] of keys) {
      if (!(Number.isInteger(i) && i >= 1 && i < s.tokens.length)) {
        throw new RangeError(
          `Cannot score teacherForcedHits: items[${n}] keys position ${i}, which must be an integer in [1, ${s.tokens.length}) ` +
            "(position 0 has no prefix to predict it from)",
        );
      }
    }
  });
  const hits = new Map<string, Hits>();
  const keyed = items.filter((x) => x.keys.length > 0);
  const predicted = await teacherForcedArgmax(model, tokenizer, keyed.map((x) => x.s));
  keyed.forEach(({ s, keys }, n) => {
    for (const [i, key] of keys) {
      const h = hits.get(key) ?? { correct: 0, total: 0 };
      h.correct += predicted[n]![i] === s.tokens[i] ? 1 : 0;
      h.total += 1;
      hits.set(key, h);
    }
  });
  return hits;
}

/**
 * The greedy prediction at every position of each sequence, teacher-forced:
 * one forward per chunk of right-padded sequences (causal: padding never
 * changes an earlier position), the weights fused as for any pass without
 * gradients. What a probe reads when it asks what the policy wrote instead.
 *
 * ```text
 * predicted[n][i] = argmax p(· | s_n[<i])   (i ≥ 1; −1 at position 0, which has no prefix)
 * ```
 *
 * With `exclude` the argmax runs over the other tokens: what the policy
 * writes once those are ruled out (its runner-up where it wrote one of them).
 *
 * Source: this package (the forward loop of every probe of `diagnostics/`).
 *
 * @param model The policy.
 * @param tokenizer Its tokenizer (the padding id).
 * @param sequences The sequences (their loss masks are not read).
 * @param options `exclude`: token ids the argmax never picks. @default none
 * @returns One array per sequence, as long as it.
 *
 * @example A model's prediction at a position is the argmax of its logits there
 * ```ts
 * import assert from "node:assert/strict";
 * import { tf } from "../../lib/tf.ts";
 * import { buildTokenizer, encode } from "../../lib/text/tokenizer.ts";
 * import { modelPreset } from "../../lib/model/config.ts";
 * import { createModel } from "../../lib/model/params.ts";
 * import { forwardHidden, outputLogits } from "../../lib/model/transformer.ts";
 * import { teacherForcedArgmax } from "./teacher_forced.ts";
 *
 * const tok = buildTokenizer(["a b c"]);
 * const model = createModel(modelPreset("tiny", tok.size), { seed: 1 });
 * const ids = encode(tok, "a b c a").ids;
 * const [p] = await teacherForcedArgmax(model, tok, [{ tokens: ids, lossMask: ids.map(() => 1) }, { tokens: ids.slice(0, 2), lossMask: [0, 1] }]);
 * const logits = tf.tidy(() => tf.argMax(outputLogits(model, forwardHidden(model, tf.tensor2d([ids], [1, 4], "int32")).hidden), -1));
 * assert.deepEqual([...p!], [-1, ...(await logits.data()).slice(0, 3)]);
 * const [q] = await teacherForcedArgmax(model, tok, [{ tokens: ids, lossMask: ids.map(() => 1) }], { exclude: [p![1]!] });
 * assert.notEqual(q![1], p![1]);
 * logits.dispose();
 * model.dispose();
 * ```
 */
export async function teacherForcedArgmax(
  model: Model,
  tokenizer: Tokenizer,
  sequences: readonly LmSequence[],
  options: { exclude?: readonly number[] } = {},
): Promise<Int32Array[]> {
  return (await teacherForcedArgmaxes(model, tokenizer, sequences, [options.exclude ?? []]))[0]!;
}

/**
 * {@linkcode teacherForcedArgmax} under several sets of excluded tokens from
 * one forward pass: one result per set, in order (`[[], [id]]`: what the
 * policy writes, and what it writes once `id` is ruled out).
 *
 * Source: this package.
 *
 * @param model The policy.
 * @param tokenizer Its tokenizer (the padding id).
 * @param sequences The sequences (their loss masks are not read).
 * @param excludes The sets of token ids ruled out, one result each.
 * @returns Per set, one array per sequence, as long as it.
 *
 * @example The same as one call per set
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildTokenizer, encode } from "../../lib/text/tokenizer.ts";
 * import { modelPreset } from "../../lib/model/config.ts";
 * import { createModel } from "../../lib/model/params.ts";
 * import { teacherForcedArgmax, teacherForcedArgmaxes } from "./teacher_forced.ts";
 *
 * const tok = buildTokenizer(["a b c"]);
 * const model = createModel(modelPreset("tiny", tok.size), { seed: 1 });
 * const ids = encode(tok, "a b c a b").ids;
 * const s = [{ tokens: ids, lossMask: ids.map(() => 1) }];
 * const [plain, without] = await teacherForcedArgmaxes(model, tok, s, [[], [ids[2]!, ids[3]!]]);
 * assert.deepEqual(plain, await teacherForcedArgmax(model, tok, s));
 * assert.deepEqual(without, await teacherForcedArgmax(model, tok, s, { exclude: [ids[2]!, ids[3]!] }));
 * model.dispose();
 * ```
 */
export async function teacherForcedArgmaxes(
  model: Model,
  tokenizer: Tokenizer,
  sequences: readonly LmSequence[],
  excludes: readonly (readonly number[])[],
): Promise<Int32Array[][]> {
  const out = excludes.map(() => sequences.map((s) => new Int32Array(s.tokens.length).fill(-1)));
  if (sequences.length === 0) return out;
  for (const id of excludes.flat()) {
    if (!(Number.isInteger(id) && id >= 0 && id < model.config.vocabSize)) {
      throw new RangeError(
        `Cannot score teacherForcedArgmax: exclude holds ${id}, which must be a token id in [0, ${model.config.vocabSize})`,
      );
    }
  }
  const fused = fuseWeights(model);
  const projection = outputProjection(model);
  // −∞ on each set's excluded ids (a row added to every position's logits)
  const ruledOut = excludes.map((exclude) =>
    exclude.length === 0 ? undefined : tf.tidy(() => {
      const row = new Float32Array(model.config.vocabSize);
      for (const id of exclude) row[id] = -Infinity;
      return tf.tensor1d(row);
    })
  );
  try {
    const order = sequences.map((_, n) => n);
    for (const chunk of chunksByTokens(order, (n) => sequences[n]!.tokens.length, 32, 4096)) {
      const batch = collateLm(chunk.map((n) => sequences[n]!), tokenizer.padId);
      const predicted: ArrayLike<number>[] = [];
      try {
        const argmaxes = tf.tidy(() => {
          const logits = outputLogits(model, forwardHidden(model, batch.tokens, { fused }).hidden, projection);
          return ruledOut.map((row) => tf.argMax(row ? tf.add(logits, row) : logits, -1));
        });
        try {
          for (const argmax of argmaxes) predicted.push(await argmax.data());
        } finally {
          tf.dispose(argmaxes);
        }
      } finally {
        disposeLmBatch(batch);
      }
      const L = batch.tokens.shape[1];
      predicted.forEach((got, e) =>
        chunk.forEach((n, b) => {
          const p = out[e]![n]!;
          for (let i = 1; i < p.length; i++) p[i] = got[b * L + i - 1]!;
        })
      );
    }
  } finally {
    disposeFusedWeights(fused);
    projection.dispose();
    tf.dispose(ruledOut.filter((t) => t !== undefined));
  }
  return out;
}

/**
 * Several probes' hits from one teacher-forced pass: each probe keys the
 * positions it scores, the keys are namespaced by probe (`probe/key`) for
 * one {@linkcode teacherForcedHits} call, and the hits are split back per
 * probe. A position two probes key is scored once and counted by both.
 *
 * ```text
 * hits[p][key] = teacherForcedHits(∪_p { (i, p/key) : (i, key) ∈ probes[p](s) })[p/key]
 * ```
 *
 * Source: this package (the copy and step diagnostics of one test set share a pass).
 *
 * @param model The policy.
 * @param tokenizer Its tokenizer.
 * @param sequences The sequences scored.
 * @param probes Per probe name, the keyed positions of a sequence.
 * @returns Per probe name, its hits per key.
 *
 * @example Two probes of one sequence, one pass
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildTokenizer, encode } from "../../lib/text/tokenizer.ts";
 * import { modelPreset } from "../../lib/model/config.ts";
 * import { createModel } from "../../lib/model/params.ts";
 * import { probeHits } from "./teacher_forced.ts";
 *
 * const tok = buildTokenizer(["a b c"]);
 * const model = createModel(modelPreset("tiny", tok.size), { seed: 1 });
 * const ids = encode(tok, "a b c").ids;
 * const hits = await probeHits(model, tok, [{ tokens: ids, lossMask: [0, 1, 1] }], {
 *   all: () => [[1, "x"], [2, "x"]],
 *   last: () => [[2, "y"]],
 * });
 * assert.deepEqual([hits.all!.get("x")!.total, hits.last!.get("y")!.total], [2, 1]);
 * model.dispose();
 * ```
 */
export async function probeHits<P extends string>(
  model: Model,
  tokenizer: Tokenizer,
  sequences: readonly LmSequence[],
  probes: Readonly<Record<P, (s: LmSequence) => [number, string][]>>,
): Promise<Record<P, Map<string, Hits>>> {
  const names = Object.keys(probes) as P[];
  for (const p of names) {
    if (p.includes("/")) throw new RangeError(`Cannot run probeHits: probe names hold no "/", current value is "${p}"`);
  }
  const all = await teacherForcedHits(
    model,
    tokenizer,
    sequences.map((s) => ({
      s,
      keys: names.flatMap((p) => probes[p](s).map(([i, key]) => [i, `${p}/${key}`] as [number, string])),
    })),
  );
  const out = Object.fromEntries(names.map((p) => [p, new Map<string, Hits>()])) as Record<P, Map<string, Hits>>;
  for (const [key, h] of all) {
    const cut = key.indexOf("/");
    out[key.slice(0, cut) as P].set(key.slice(cut + 1), h);
  }
  return out;
}
