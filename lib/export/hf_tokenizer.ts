/**
 * The tokenizer files of a Hugging Face model folder (`tokenizer.json`,
 * `tokenizer_config.json`, `special_tokens_map.json`) with a chat template that
 * renders the package's role markers, so that `AutoTokenizer`, verl's agent
 * loop and vLLM produce the package's token ids.
 *
 * @module
 */
import { type Tokenizer, tokenizerToJson } from "../text/tokenizer.ts";

/**
 * The chat template (Jinja, as `transformers` renders it): one message a piece,
 * pieces joined by single spaces.
 *
 * ```text
 * system / user / assistant:  <|role|> content <|end|>
 * tool:                       <|user|> content <|end|>        preceded by "<|end|> " when rendered alone
 * generation prompt:          <|assistant|> <mem>             (the forced <mem> of every turn)
 * ```
 *
 * A tool message rendered alone is what verl's agent loop appends after a
 * generated turn, which stopped at its closing tag: the `<|end|>` that ends the
 * assistant turn in the package's contexts comes with it, so verl's full
 * context is token for token the package's `full` context.
 */
export const CHAT_TEMPLATE = [
  "{%- for message in messages -%}",
  "{%- if not loop.first %} {% endif -%}",
  "{%- if message['role'] == 'tool' -%}",
  "{%- if loop.first %}<|end|> {% endif -%}",
  "<|user|> {{ message['content'] }} <|end|>",
  "{%- elif message['role'] in ['system', 'user', 'assistant'] -%}",
  "<|{{ message['role'] }}|> {{ message['content'] }} <|end|>",
  "{%- else -%}",
  "{{ raise_exception('mempo-lab chat template: unknown role ' ~ message['role']) }}",
  "{%- endif -%}",
  "{%- endfor -%}",
  "{%- if add_generation_prompt -%}",
  "{%- if messages | length > 0 %} {% endif -%}",
  "<|assistant|> <mem>",
  "{%- endif -%}",
].join("\n");

/** Tokens the exported tokenizer marks special (skipped by `decode(…, skip_special_tokens=True)`). */
export const HF_SPECIAL_TOKENS: readonly string[] = Object.freeze(["<pad>", "<eos>"]);

/** The three tokenizer files, as text. */
export interface HfTokenizerFiles {
  /** `tokenizer.json` (WordLevel, Lowercase, Whitespace). */
  "tokenizer.json": string;
  /** `tokenizer_config.json` (special tokens, chat template, no BOS/EOS added, no clean-up of spaces). */
  "tokenizer_config.json": string;
  /** `special_tokens_map.json`. */
  "special_tokens_map.json": string;
}

/**
 * The tokenizer as Hugging Face files. Only `<pad>` and `<eos>` are special:
 * verl's reward manager decodes responses with `skip_special_tokens=True`, and
 * the reward must still see the tags and role markers a model writes (the
 * package's decode drops only `<pad>`; `<eos>` always ends a turn).
 *
 * ```text
 * tokenizer.json:        the package's (tokenizerToJson), added_tokens[].special = token ∈ {<pad>, <eos>}
 * tokenizer_config.json: unk <unk>, eos <eos>, pad <pad>, bos <eos> (never added), chat_template, model_max_length
 * ```
 *
 * Source: Hugging Face `tokenizers` serialization and `transformers` `tokenizer_config.json`
 * (GPT-2's convention bos = eos with `add_bos_token: false`).
 *
 * @param tokenizer The package's tokenizer.
 * @param maxPositions The model's positions (`model_max_length`).
 * @returns The files' texts.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildTokenizer } from "../text/tokenizer.ts";
 * import { hfTokenizerFiles } from "./hf_tokenizer.ts";
 *
 * const files = hfTokenizerFiles(buildTokenizer(["a b"]), 64);
 * const json = JSON.parse(files["tokenizer.json"]);
 * assert.deepEqual(json.added_tokens.filter((t: { special: boolean }) => t.special).map((t: { content: string }) => t.content), ["<pad>", "<eos>"]);
 * assert.equal(JSON.parse(files["tokenizer_config.json"]).model_max_length, 64);
 * ```
 */
export function hfTokenizerFiles(tokenizer: Tokenizer, maxPositions: number): HfTokenizerFiles {
  if (!Number.isInteger(maxPositions) || maxPositions < 1) {
    throw new RangeError(
      `Cannot write the tokenizer files: maxPositions must be a positive integer, current value is ${maxPositions}`,
    );
  }
  const json = JSON.parse(tokenizerToJson(tokenizer));
  for (const t of json.added_tokens as { content: string; special: boolean }[]) {
    t.special = HF_SPECIAL_TOKENS.includes(t.content);
  }
  const special = { unk_token: "<unk>", eos_token: "<eos>", pad_token: "<pad>", bos_token: "<eos>" };
  const config = {
    tokenizer_class: "PreTrainedTokenizerFast",
    ...special,
    add_bos_token: false,
    add_eos_token: false,
    clean_up_tokenization_spaces: false,
    model_max_length: maxPositions,
    padding_side: "left",
    chat_template: CHAT_TEMPLATE,
  };
  return {
    "tokenizer.json": JSON.stringify(json, null, 1),
    "tokenizer_config.json": JSON.stringify(config, null, 2),
    "special_tokens_map.json": JSON.stringify(special, null, 2),
  };
}
