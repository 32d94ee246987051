/**
 * An induction warm-up before SFT (and mixed into SFT): random words, a
 * random sequence of words, more random words, then the sequence again
 * (loss on the repeat from its second word on). Lengths and noise vary, so
 * no fixed offset predicts the repeat: the model has to find the earlier
 * occurrence of the current word and copy the word after it, which is an
 * induction head, the circuit the agent needs to copy an entity name from
 * the question and an answer from a document.
 *
 * @module
 */
import { createRng } from "../random.ts";
import type { Tokenizer } from "../text/tokenizer.ts";
import { SPECIAL_TOKENS } from "../text/tokenizer.ts";
import type { LmSequence } from "./collate.ts";

/** Options of {@linkcode copyTaskSequences}. */
export interface CopyTaskOptions {
  /** Sequences. */
  count: number;
  /** Words in the repeated sequence: a fixed number, or `[min, max]` drawn per sequence. @default [8, 32] */
  length?: number | [number, number];
  /** Random words before and after the sequence's first occurrence: at most this many each. @default 4 */
  maxNoise?: number;
  /** Seed. @default 0 */
  seed?: number;
}

/**
 * Copy-task sequences over the tokenizer's ordinary words.
 *
 * ```text
 * <|user|> r₁ … r_a  w₁ … w_n  s₁ … s_b <|end|> <|assistant|> w₁ … w_n     (loss on the second w₂ … w_n)
 * n ~ U[min, max],  a, b ~ U[0, maxNoise],  every word uniform over the ordinary vocabulary
 * ```
 *
 * The repeat's first word is context, not target: where the sequence starts
 * cannot be known, only what follows each word.
 *
 * Source: Olsson et al. 2022, "In-context Learning and Induction Heads"
 * (arXiv:2209.11895) — repeated random sequences form induction heads.
 *
 * @param tokenizer The tokenizer (its non-special tokens are the alphabet).
 * @param options Count, length, noise, seed.
 * @returns Training sequences.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildTokenizer } from "../text/tokenizer.ts";
 * import { copyTaskSequences } from "./copy_task.ts";
 *
 * const [s] = copyTaskSequences(buildTokenizer(["a b c d e"]), { count: 1, length: 3, maxNoise: 0 });
 * assert.deepEqual(s!.tokens.slice(1, 4), s!.tokens.slice(6, 9));
 * assert.deepEqual(s!.lossMask, [0, 0, 0, 0, 0, 0, 0, 1, 1]);
 * ```
 */
export function copyTaskSequences(tokenizer: Tokenizer, options: CopyTaskOptions): LmSequence[] {
  const { count, length = [8, 32], maxNoise = 4, seed = 0 } = options;
  const [minLen, maxLen] = typeof length === "number" ? [length, length] : length;
  if (!Number.isInteger(minLen) || minLen < 2 || !Number.isInteger(maxLen) || maxLen < minLen) {
    throw new RangeError(`Invalid copy task: length must be integers 2 ≤ min ≤ max, current value is ${length}`);
  }
  const first = SPECIAL_TOKENS.length;
  if (tokenizer.size <= first) throw new RangeError("Cannot build a copy task: the vocabulary has no ordinary words");
  const rng = createRng(seed);
  const word = () => first + rng.int(tokenizer.size - first);
  const words = (n: number) => Array.from({ length: n }, word);
  const open = [tokenizer.special("<|user|>")];
  const middle = [tokenizer.special("<|end|>"), tokenizer.special("<|assistant|>")];
  return Array.from({ length: count }, () => {
    const seq = words(minLen + rng.int(maxLen - minLen + 1));
    const before = words(rng.int(maxNoise + 1));
    const after = words(rng.int(maxNoise + 1));
    const prompt = [...open, ...before, ...seq, ...after, ...middle];
    const tokens = [...prompt, ...seq];
    return { tokens, lossMask: tokens.map((_, i) => (i > prompt.length ? 1 : 0)) };
  });
}
