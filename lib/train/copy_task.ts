/**
 * An induction warm-up before SFT: random sequences of vocabulary words,
 * then a separator, then the same words again (loss on the repeat only).
 * The only way to predict the repeat is to copy from the context, which
 * forms induction heads — the circuit the agent needs to copy an entity name
 * from the question into its search, and an answer from a document into
 * `<mem>`.
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
  /** Words per sequence (before the repeat). @default 8 */
  length?: number;
  /** Seed. @default 0 */
  seed?: number;
}

/**
 * Copy-task sequences over the tokenizer's ordinary words.
 *
 * ```text
 * <|user|> w₁ … w_n <|end|> <|assistant|> w₁ … w_n        (loss on the second w₁ … w_n)
 * ```
 *
 * Source: Olsson et al. 2022, "In-context Learning and Induction Heads"
 * (arXiv:2209.11895) — repeated random sequences form induction heads.
 *
 * @param tokenizer The tokenizer (its non-special tokens are the alphabet).
 * @param options Count, length, seed.
 * @returns Training sequences.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildTokenizer } from "../text/tokenizer.ts";
 * import { copyTaskSequences } from "./copy_task.ts";
 *
 * const [s] = copyTaskSequences(buildTokenizer(["a b c d e"]), { count: 1, length: 3 });
 * assert.deepEqual(s!.tokens.slice(1, 4), s!.tokens.slice(6, 9));
 * assert.deepEqual(s!.lossMask, [0, 0, 0, 0, 0, 0, 1, 1, 1]);
 * ```
 */
export function copyTaskSequences(tokenizer: Tokenizer, options: CopyTaskOptions): LmSequence[] {
  const { count, length = 8, seed = 0 } = options;
  const first = SPECIAL_TOKENS.length;
  if (tokenizer.size <= first) throw new RangeError("Cannot build a copy task: the vocabulary has no ordinary words");
  const rng = createRng(seed);
  const open = [tokenizer.special("<|user|>")];
  const middle = [tokenizer.special("<|end|>"), tokenizer.special("<|assistant|>")];
  return Array.from({ length: count }, () => {
    const words = Array.from({ length }, () => first + rng.int(tokenizer.size - first));
    const tokens = [...open, ...words, ...middle, ...words];
    return { tokens, lossMask: tokens.map((_, i) => (i >= open.length + length + middle.length ? 1 : 0)) };
  });
}
