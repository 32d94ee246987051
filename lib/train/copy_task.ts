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
import type { SftConfig } from "../config/experiment.ts";

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
  /**
   * Share of sequences written as a list, `w₁ ; w₂ ; … ; w_n` (the word `;`
   * between words), which a copy continues after a `;` by the word before it:
   * the lookup of the agent's answers (`a₁ ; a₂ ; …`) in its memory and its
   * final answer. @default 0
   */
  listShare?: number;
}

/**
 * Copy-task sequences over the tokenizer's ordinary words.
 *
 * ```text
 * <|user|> r₁ … r_a  w₁ … w_n  s₁ … s_b <|end|> <|assistant|> w₁ … w_n     (loss on the second w₂ … w_n)
 * n ~ U[min, max],  a, b ~ U[0, maxNoise],  every word uniform over the ordinary vocabulary
 * a list (share listShare):  w₁ ; w₂ ; … ; w_⌈n/2⌉ in both places
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
 * const tok = buildTokenizer(["a b c d e ;"]);
 * const [list] = copyTaskSequences(tok, { count: 1, length: 6, maxNoise: 0, listShare: 1 });
 * assert.equal(list!.tokens.length, 1 + 5 + 2 + 5); // three of the six words, with ; between, twice
 * assert.deepEqual([2, 4, 9, 11].map((i) => list!.tokens[i] === tok.vocab.get(";")), [true, true, true, true]);
 * ```
 */
export function copyTaskSequences(tokenizer: Tokenizer, options: CopyTaskOptions): LmSequence[] {
  const { count, length = [8, 32], maxNoise = 4, seed = 0, listShare = 0 } = options;
  const [minLen, maxLen] = typeof length === "number" ? [length, length] : length;
  if (!Number.isInteger(minLen) || minLen < 2 || !Number.isInteger(maxLen) || maxLen < minLen) {
    throw new RangeError(`Invalid copy task: length must be integers 2 ≤ min ≤ max, current value is ${length}`);
  }
  const first = SPECIAL_TOKENS.length;
  if (tokenizer.size <= first) throw new RangeError("Cannot build a copy task: the vocabulary has no ordinary words");
  const rng = createRng(seed);
  const word = () => first + rng.int(tokenizer.size - first);
  const words = (n: number) => Array.from({ length: n }, word);
  if (!(listShare >= 0 && listShare <= 1)) {
    throw new RangeError(`Invalid copy task: listShare must be in [0, 1], current value is ${listShare}`);
  }
  const separator = tokenizer.vocab.get(";");
  if (listShare > 0 && separator === undefined) {
    throw new RangeError("Cannot build a copy task with lists: the vocabulary has no ';'");
  }
  const open = [tokenizer.special("<|user|>")];
  const middle = [tokenizer.special("<|end|>"), tokenizer.special("<|assistant|>")];
  return Array.from({ length: count }, () => {
    let seq = words(minLen + rng.int(maxLen - minLen + 1));
    // a list: half the words with `;` between them, about as many tokens (drawn only when lists are asked for: the
    // same stream without)
    if (listShare > 0 && rng.next() < listShare) {
      seq = seq.slice(0, Math.ceil(seq.length / 2)).flatMap((w, i) => (i === 0 ? [w] : [separator!, w]));
    }
    const before = words(rng.int(maxNoise + 1));
    const after = words(rng.int(maxNoise + 1));
    const prompt = [...open, ...before, ...seq, ...after, ...middle];
    const tokens = [...prompt, ...seq];
    return { tokens, lossMask: tokens.map((_, i) => (i > prompt.length ? 1 : 0)) };
  });
}

/**
 * The induction sequences of a run, from its SFT settings: the one place where `sft.inductionNoise`
 * becomes {@linkcode copyTaskSequences}' `maxNoise` (the warm-up's pool and the pool mixed into SFT) and, with
 * `lists` (the pool mixed into SFT), `sft.inductionLists` its `listShare`. The warm-up's pool has no lists: with half
 * of it lists, the warm-up's loss stayed at ~4 after 550 steps (no induction head; 0.64 without).
 *
 * Source: see {@linkcode copyTaskSequences}.
 *
 * @param tokenizer The run's tokenizer (its ordinary words are the vocabulary).
 * @param sft The run's SFT settings (`inductionNoise`; default 4).
 * @param options How many sequences, their seed, and whether some are lists (`sft.inductionLists`).
 * @returns `count` sequences with loss on the repeat.
 *
 * @example `inductionNoise` is the copy task's `maxNoise`
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildTokenizer } from "../text/tokenizer.ts";
 * import { copyTaskSequences, inductionSequences } from "./copy_task.ts";
 *
 * const tok = buildTokenizer(["a b c d e f"]);
 * const sft = { steps: 1, batchSize: 1, lr: 1e-3, warmupSteps: 0, demos: 1, dropProbability: 0, inductionNoise: 0 };
 * const seqs = inductionSequences(tok, sft, { count: 5, seed: 1 });
 * assert.deepEqual(seqs, copyTaskSequences(tok, { count: 5, seed: 1, maxNoise: 0 }));
 * ```
 */
export function inductionSequences(
  tokenizer: Tokenizer,
  sft: SftConfig,
  options: { count: number; seed: number; lists?: boolean },
): LmSequence[] {
  return copyTaskSequences(tokenizer, {
    count: options.count,
    seed: options.seed,
    maxNoise: sft.inductionNoise,
    ...(options.lists ? { listShare: sft.inductionLists ?? 0 } : {}),
  });
}
