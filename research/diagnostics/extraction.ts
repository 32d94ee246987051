/**
 * Where does the first turn's extraction go wrong? The state memory's first
 * turn copies every objective of the question into `<mem>` (`subject
 * relations ; subject relations ; … |`); with `data.questionOnce` it is the
 * only turn that reads the question. Teacher-forced accuracy of that memory
 * by the place of the item in the list and by the kind of word: the
 * subject (a name looked up in the question) or its relations (the
 * question's wording of that part, turned into relation words).
 *
 * @module
 */
import type { Tokenizer } from "../../lib/text/tokenizer.ts";
import type { Model } from "../../lib/model/params.ts";
import type { LmSequence } from "../../lib/train/collate.ts";
import { teacherForcedHits } from "./teacher_forced.ts";
import { RELATION_WORDS } from "../../lib/env/world.ts";

/** Accuracy at one place of the extracted list. */
export interface ExtractionPlace {
  /** 1-based place of the item in the open list. */
  place: number;
  /** The subject's token(s): right, scored. */
  subject: { correct: number; total: number };
  /** The relation words and the `;` after the item: right, scored. */
  relations: { correct: number; total: number };
}

/**
 * The positions of a first turn's extracted list, keyed `place:subject` or
 * `place:relations`: in a sequence whose first learned token follows the
 * turn's `<mem>` with no tool result (`<information>`) before it, every
 * learned token up to `|` (the `;` after an item counts with its
 * relations). Other sequences give none.
 *
 * Source: this package.
 *
 * @param s A teacher sequence (`probeTurns`).
 * @param tokenizer The tokenizer.
 * @returns `[position, key]` pairs.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildTokenizer, encode } from "../../lib/text/tokenizer.ts";
 * import { extractionPositions } from "./extraction.ts";
 *
 * const tok = buildTokenizer(["q a b born located ; |"]);
 * const tokens = encode(tok, "<|user|> q <|end|> <|assistant|> <mem> a born ; b located | </mem>").ids;
 * const lossMask = tokens.map((_, i) => (i >= 5 ? 1 : 0));
 * assert.deepEqual(extractionPositions({ tokens, lossMask }, tok).map(([i, k]) => `${i} ${k}`), [
 *   "5 1:subject", "6 1:relations", "7 1:relations", "8 2:subject", "9 2:relations",
 * ]);
 * const bare = encode(tok, "<|user|> q <|end|> <|assistant|> <mem> a born b located |").ids;
 * assert.deepEqual(extractionPositions({ tokens: bare, lossMask: bare.map((_, i) => (i >= 5 ? 1 : 0)) }, tok).map(([, k]) => k), [
 *   "1:subject", "1:relations", "2:subject", "2:relations",
 * ]);
 * const later = encode(tok, "<information> q </information> <|assistant|> <mem> a |").ids;
 * assert.deepEqual(extractionPositions({ tokens: later, lossMask: later.map((_, i) => (i >= 5 ? 1 : 0)) }, tok), []);
 * ```
 */
export function extractionPositions(s: LmSequence, tokenizer: Tokenizer): [number, string][] {
  const first = s.lossMask.indexOf(1);
  const mem = tokenizer.special("<mem>");
  const info = tokenizer.special("<information>");
  if (first < 1 || s.tokens[first - 1] !== mem || s.tokens.slice(0, first).includes(info)) return [];
  const bar = tokenizer.vocab.get("|");
  const out: [number, string][] = [];
  // any word but a relation and `;` starts an item (so a list with no `;`, "state-relations-bare", reads the same)
  let place = 0;
  for (let i = first; i < s.tokens.length && s.lossMask[i] === 1 && s.tokens[i] !== bar; i++) {
    const w = tokenizer.tokens[s.tokens[i]!] ?? "";
    const name = w !== ";" && !RELATION_WORDS.has(w);
    if (name) place += 1;
    out.push([i, `${Math.max(1, place)}:${name ? "subject" : "relations"}`]);
  }
  return out;
}

/**
 * Teacher-forced accuracy of the first turn's extracted list by place and
 * kind of word ({@linkcode extractionPositions}), one forward per chunk.
 *
 * Source: this package.
 *
 * @param model The policy.
 * @param tokenizer Its tokenizer.
 * @param sequences Teacher sequences (`probeTurns`); only first turns are scored.
 * @returns One row per place, in order.
 *
 * @example A random tiny model scores each place's subject and relations once
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildTokenizer, encode } from "../../lib/text/tokenizer.ts";
 * import { modelPreset } from "../../lib/model/config.ts";
 * import { createModel } from "../../lib/model/params.ts";
 * import { extractionByPlace } from "./extraction.ts";
 *
 * const tok = buildTokenizer(["q a b born located ; |"]);
 * const model = createModel(modelPreset("tiny", tok.size), { seed: 1 });
 * const tokens = encode(tok, "<|user|> q <|end|> <|assistant|> <mem> a born ; b located | </mem>").ids;
 * const rows = await extractionByPlace(model, tok, [{ tokens, lossMask: tokens.map((_, i) => (i >= 5 ? 1 : 0)) }]);
 * assert.deepEqual(rows.map((r) => [r.place, r.subject.total, r.relations.total]), [[1, 1, 2], [2, 1, 1]]);
 * model.dispose();
 * ```
 */
export async function extractionByPlace(
  model: Model,
  tokenizer: Tokenizer,
  sequences: readonly LmSequence[],
): Promise<ExtractionPlace[]> {
  const items = sequences.map((s) => ({ s, keys: extractionPositions(s, tokenizer) }));
  const hits = await teacherForcedHits(model, tokenizer, items);
  const places = Math.max(0, ...[...hits.keys()].map((k) => parseInt(k)));
  return Array.from({ length: places }, (_, i) => ({
    place: i + 1,
    subject: hits.get(`${i + 1}:subject`) ?? { correct: 0, total: 0 },
    relations: hits.get(`${i + 1}:relations`) ?? { correct: 0, total: 0 },
  }));
}
