/**
 * Word-level tokenizer with the agent's special tags, stored as a Hugging Face
 * `tokenizer.json` (WordLevel model) so standard tools read it.
 *
 * @module
 */
import { parseJsonText } from "../json_file.ts";

/** The special tokens, in id order (ids 0 … 16). */
export const SPECIAL_TOKENS = Object.freeze(
  [
    "<pad>",
    "<unk>",
    "<eos>",
    "<|system|>",
    "<|user|>",
    "<|assistant|>",
    "<|end|>",
    "<mem>",
    "</mem>",
    "<think>",
    "</think>",
    "<search>",
    "</search>",
    "<answer>",
    "</answer>",
    "<information>",
    "</information>",
  ] as const,
);

/** One of {@linkcode SPECIAL_TOKENS}. */
export type SpecialToken = typeof SPECIAL_TOKENS[number];

/** A loaded tokenizer. */
export interface Tokenizer {
  /** Token → id. */
  readonly vocab: ReadonlyMap<string, number>;
  /** id → token. */
  readonly tokens: readonly string[];
  /** V, the vocabulary size. */
  readonly size: number;
  /** Id of `<pad>`. */
  readonly padId: number;
  /** Id of `<unk>`. */
  readonly unkId: number;
  /** Id of `<eos>`. */
  readonly eosId: number;
  /** Id of a special token. */
  special(token: SpecialToken): number;
}

/** Result of {@linkcode encode} with statistics. */
export interface EncodeResult {
  /** Token ids. */
  ids: number[];
  /** How many words were not in the vocabulary (mapped to `<unk>`). */
  unknown: number;
}

const SPECIAL_RE = new RegExp(
  `(${SPECIAL_TOKENS.map((s) => s.replace(/[|<>/]/g, (c) => `\\${c}`)).join("|")})`,
);
// Hugging Face `Whitespace` pre-tokenizer: \w+|[^\w\s]+
const WORD_RE = /\w+|[^\w\s]+/gu;

/**
 * Splits text into words the way the tokenizer does: special tags whole,
 * then lower-cased `\w+|[^\w\s]+` pieces.
 *
 * Source: Hugging Face tokenizers `Whitespace` pre-tokenizer and `Lowercase` normalizer.
 *
 * @param text Any text.
 * @returns The words.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { splitWords } from "./tokenizer.ts";
 *
 * assert.deepEqual(splitWords("<mem>Zorbex, born?</mem>"), ["<mem>", "zorbex", ",", "born", "?", "</mem>"]);
 * ```
 */
export function splitWords(text: string): string[] {
  const out: string[] = [];
  for (const part of text.split(SPECIAL_RE)) {
    if (part === "") continue;
    if ((SPECIAL_TOKENS as readonly string[]).includes(part)) out.push(part);
    else for (const m of part.toLowerCase().matchAll(WORD_RE)) out.push(m[0]);
  }
  return out;
}

function fromTokens(tokens: string[]): Tokenizer {
  const vocab = new Map(tokens.map((t, i) => [t, i]));
  for (const s of SPECIAL_TOKENS) {
    if (!vocab.has(s)) throw new TypeError(`Invalid tokenizer: special token ${s} is missing from the vocabulary`);
  }
  return {
    vocab,
    tokens,
    size: tokens.length,
    padId: vocab.get("<pad>")!,
    unkId: vocab.get("<unk>")!,
    eosId: vocab.get("<eos>")!,
    special: (t) => vocab.get(t)!,
  };
}

/**
 * Builds a vocabulary from texts: the special tokens, then every word seen at
 * least `minCount` times, most frequent first (ties alphabetical).
 *
 * Source: word-level language modelling (Mikolov et al. 2010); Hugging Face `WordLevelTrainer`.
 *
 * @param texts Corpus texts.
 * @param options `minCount` (default 1).
 * @returns A tokenizer.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildTokenizer, encode } from "./tokenizer.ts";
 *
 * const tok = buildTokenizer(["the cat sat", "the dog"]);
 * assert.equal(tok.tokens[17], "the");
 * assert.deepEqual(encode(tok, "the bird").unknown, 1);
 * ```
 */
export function buildTokenizer(texts: Iterable<string>, options: { minCount?: number } = {}): Tokenizer {
  const { minCount = 1 } = options;
  const counts = new Map<string, number>();
  for (const text of texts) {
    for (const w of splitWords(text)) {
      if (!(SPECIAL_TOKENS as readonly string[]).includes(w)) counts.set(w, (counts.get(w) ?? 0) + 1);
    }
  }
  const words = [...counts.entries()].filter(([, c]) => c >= minCount).sort((a, b) =>
    b[1] - a[1] || (a[0] < b[0] ? -1 : 1)
  ).map(([w]) => w);
  return fromTokens([...SPECIAL_TOKENS, ...words]);
}

/**
 * Text → ids; words outside the vocabulary become `<unk>` and are counted.
 *
 * Source: Hugging Face tokenizers `WordLevel` model.
 *
 * @param tokenizer The tokenizer.
 * @param text Text to encode.
 * @returns Ids and the unknown-word count.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildTokenizer, decode, encode } from "./tokenizer.ts";
 *
 * const tok = buildTokenizer(["zorbex was born in kalmar ."]);
 * const { ids } = encode(tok, "<answer> Kalmar </answer>");
 * assert.equal(decode(tok, ids), "<answer> kalmar </answer>");
 * ```
 */
export function encode(tokenizer: Tokenizer, text: string): EncodeResult {
  let unknown = 0;
  const ids = splitWords(text).map((w) => {
    const id = tokenizer.vocab.get(w);
    if (id === undefined) {
      unknown += 1;
      return tokenizer.unkId;
    }
    return id;
  });
  return { ids, unknown };
}

/**
 * Ids → text, words joined by single spaces (`<pad>` dropped).
 *
 * Source: Hugging Face tokenizers, WordLevel decoding (space-joined tokens).
 *
 * @param tokenizer The tokenizer.
 * @param ids Token ids.
 * @returns The text.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildTokenizer, decode } from "./tokenizer.ts";
 *
 * const tok = buildTokenizer(["a b"]);
 * assert.equal(decode(tok, [7, 17, 0, 8]), "<mem> a </mem>");
 * ```
 */
export function decode(tokenizer: Tokenizer, ids: readonly number[]): string {
  return ids.filter((i) => i !== tokenizer.padId).map((i) => {
    const t = tokenizer.tokens[i];
    if (t === undefined) throw new RangeError(`Cannot decode: id ${i} is outside the vocabulary of ${tokenizer.size}`);
    return t;
  }).join(" ");
}

/**
 * Serialises to Hugging Face `tokenizer.json` (WordLevel, Lowercase, Whitespace).
 *
 * Source: Hugging Face tokenizers serialization format (`tokenizer.json`).
 *
 * @param tokenizer The tokenizer.
 * @returns The JSON text.
 *
 * @example Round trip
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildTokenizer, tokenizerFromJson, tokenizerToJson } from "./tokenizer.ts";
 *
 * const tok = buildTokenizer(["x y z"]);
 * assert.deepEqual(tokenizerFromJson(tokenizerToJson(tok)).tokens, tok.tokens);
 * ```
 */
export function tokenizerToJson(tokenizer: Tokenizer): string {
  return JSON.stringify(
    {
      version: "1.0",
      truncation: null,
      padding: null,
      added_tokens: SPECIAL_TOKENS.map((content) => ({
        id: tokenizer.vocab.get(content),
        content,
        single_word: false,
        lstrip: false,
        rstrip: false,
        normalized: false,
        special: true,
      })),
      normalizer: { type: "Lowercase" },
      pre_tokenizer: { type: "Whitespace" },
      post_processor: null,
      decoder: null,
      model: { type: "WordLevel", vocab: Object.fromEntries(tokenizer.vocab), unk_token: "<unk>" },
    },
    null,
    1,
  );
}

/**
 * Parses a Hugging Face WordLevel `tokenizer.json`.
 *
 * Source: Hugging Face tokenizers serialization format.
 *
 * @param json The file's text.
 * @param source The file, named when its text is not JSON. @default "tokenizer.json"
 * @returns A tokenizer; throws a `DataError` naming `source` for text that is not JSON, a `TypeError` naming the
 * field for other formats.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { tokenizerFromJson } from "./tokenizer.ts";
 *
 * assert.throws(() => tokenizerFromJson('{"model": {"type": "BPE"}}'), /model.type must be "WordLevel", current value is "BPE"/);
 * assert.throws(() => tokenizerFromJson('{"model": {', "runs/x/tokenizer.json"), /runs\/x\/tokenizer\.json is not valid JSON/);
 * ```
 */
export function tokenizerFromJson(json: string, source = "tokenizer.json"): Tokenizer {
  const data = parseJsonText(json, source) as { model?: { type?: unknown; vocab?: Record<string, number> } } | null;
  if (data?.model?.type !== "WordLevel") {
    throw new TypeError(
      `Invalid tokenizer.json: model.type must be "WordLevel", current value is ${JSON.stringify(data?.model?.type)}`,
    );
  }
  const vocab = data.model.vocab as Record<string, number>;
  const tokens: string[] = [];
  for (const [t, i] of Object.entries(vocab)) {
    if (!Number.isInteger(i) || i < 0 || tokens[i] !== undefined) {
      throw new TypeError(`Invalid tokenizer.json: model.vocab[${JSON.stringify(t)}] has a bad or duplicate id ${i}`);
    }
    tokens[i] = t;
  }
  for (let i = 0; i < tokens.length; i++) {
    if (tokens[i] === undefined) throw new TypeError(`Invalid tokenizer.json: model.vocab has no token with id ${i}`);
  }
  return fromTokens(tokens);
}
