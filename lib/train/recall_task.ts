/**
 * A recall warm-up after the induction warm-up: facts of random words,
 * `s r o .`, then questions `s r` whose next word is the fact's `o`. Each
 * subject has two relations and each relation several subjects, so only the
 * pair (subject, relation) finds the fact: the read the agent does in search
 * results that state a person's birthplace and the city it lives in.
 *
 * @module
 */
import { createRng, shuffled } from "../random.ts";
import type { Tokenizer } from "../text/tokenizer.ts";
import { SPECIAL_TOKENS } from "../text/tokenizer.ts";
import type { LmSequence } from "./collate.ts";

/** Options of {@linkcode recallTaskSequences}. */
export interface RecallTaskOptions {
  /** Sequences. */
  count: number;
  /** Subjects per sequence, `[min, max]`. @default [3, 6] */
  subjects?: [number, number];
  /** Questions per sequence (at most one per fact). @default 3 */
  questions?: number;
  /** Seed. @default 0 */
  seed?: number;
}

/**
 * Recall sequences over the tokenizer's ordinary words.
 *
 * ```text
 * <|user|> s₁ r_a o₁ . s₁ r_b o₂ . s₂ r_a o₃ . … <|end|> <|assistant|> s_i r_j o ; s_k r_l o′ ; …   (loss on each o)
 * 4 relation words, each subject two of them; every word uniform over the ordinary vocabulary, the objects distinct
 * ```
 *
 * A question's object follows its pair (s, r) in the facts, and neither word
 * alone finds it: the subject has a second fact, the relation other subjects.
 * Guessing between a subject's two facts costs ln 2 ≈ 0.69 nats a question,
 * so a loss well under that says the pair is read.
 *
 * Source: this package; the task is associative recall (Arora et al. 2023,
 * "Zoology: Measuring and Improving Recall in Efficient Language Models",
 * arXiv:2312.04927) with two-word keys.
 *
 * @param tokenizer The tokenizer (its non-special tokens are the alphabet).
 * @param options Count, subjects, questions, seed.
 * @returns Training sequences, loss on the questions' objects.
 * @throws {RangeError} When the vocabulary lacks `.` or `;`, or the options are out of range.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildTokenizer } from "../text/tokenizer.ts";
 * import { recallTaskSequences } from "./recall_task.ts";
 *
 * const tok = buildTokenizer(["a b c d e f g h i j k l m n o p q r s t u v w x y z . ;"]);
 * const [seq] = recallTaskSequences(tok, { count: 1, subjects: [2, 2], questions: 1, seed: 3 });
 * const t = seq!.tokens;
 * const answer = t.findIndex((_, i) => seq!.lossMask[i] === 1);
 * // the object follows the question's pair in the facts, and the pair occurs there once
 * const facts = t.slice(1, t.indexOf(tok.special("<|end|>")));
 * const at = facts.findIndex((w, i) => w === t[answer - 2] && facts[i + 1] === t[answer - 1]);
 * assert.equal(facts[at + 2], t[answer]);
 * assert.equal(seq!.lossMask.reduce((a, b) => a + b), 1);
 * ```
 */
export function recallTaskSequences(tokenizer: Tokenizer, options: RecallTaskOptions): LmSequence[] {
  const { count, subjects = [3, 6], questions = 3, seed = 0 } = options;
  const [minS, maxS] = subjects;
  if (!Number.isInteger(minS) || minS < 1 || !Number.isInteger(maxS) || maxS < minS) {
    throw new RangeError(`Invalid recall task: subjects must be integers 1 ≤ min ≤ max, current value is ${subjects}`);
  }
  if (!Number.isInteger(questions) || questions < 1) {
    throw new RangeError(`Invalid recall task: questions must be an integer ≥ 1, current value is ${questions}`);
  }
  const dot = tokenizer.vocab.get(".");
  const separator = tokenizer.vocab.get(";");
  if (dot === undefined || separator === undefined) {
    throw new RangeError("Cannot build a recall task: the vocabulary needs '.' and ';'");
  }
  const first = SPECIAL_TOKENS.length;
  const alphabet = tokenizer.size - first;
  if (alphabet < 4 + 3 * maxS) throw new RangeError("Cannot build a recall task: too few ordinary words");
  const rng = createRng(seed);
  const open = [tokenizer.special("<|user|>")];
  const middle = [tokenizer.special("<|end|>"), tokenizer.special("<|assistant|>")];
  return Array.from({ length: count }, () => {
    // distinct words: 4 relations, then subjects, then two objects a subject
    const n = minS + rng.int(maxS - minS + 1);
    const used = new Set<number>();
    const fresh = () => {
      let w: number;
      do w = first + rng.int(alphabet); while (used.has(w) || w === dot || w === separator);
      used.add(w);
      return w;
    };
    const relations = [fresh(), fresh(), fresh(), fresh()];
    const facts: [number, number, number][] = [];
    for (let i = 0; i < n; i++) {
      const s = fresh();
      const a = rng.int(4);
      const b = (a + 1 + rng.int(3)) % 4;
      facts.push([s, relations[a]!, fresh()], [s, relations[b]!, fresh()]);
    }
    const prompt = [...open, ...facts.flatMap(([s, r, o]) => [s, r, o, dot]), ...middle];
    const asked = shuffled(facts.map((_, i) => i), rng).slice(0, Math.min(questions, facts.length));
    const tokens = [...prompt];
    const lossMask = prompt.map(() => 0);
    asked.forEach((f, q) => {
      const [s, r, o] = facts[f]!;
      if (q > 0) tokens.push(separator), lossMask.push(0);
      tokens.push(s, r, o);
      lossMask.push(0, 0, 1);
    });
    return { tokens, lossMask };
  });
}
