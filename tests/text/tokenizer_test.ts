import assert from "node:assert/strict";
import {
  buildTokenizer,
  decode,
  encode,
  SPECIAL_TOKENS,
  splitWords,
  tokenizerFromJson,
  tokenizerToJson,
} from "../../lib/text/tokenizer.ts";

const corpus = ["Zorbex was born in Kalmar.", "Kalmar is located in Vestria.", "Who founded Zorbex?", "a ; b"];

Deno.test("tokenizer: specials first, words by frequency; encode/decode round-trips; unknown words counted", () => {
  const tok = buildTokenizer(corpus);
  assert.deepEqual(tok.tokens.slice(0, SPECIAL_TOKENS.length), [...SPECIAL_TOKENS]);
  // count 2 each, ties alphabetical; then the words seen once
  assert.deepEqual(tok.tokens.slice(SPECIAL_TOKENS.length, SPECIAL_TOKENS.length + 4), [".", "in", "kalmar", "zorbex"]);
  const text = "<|user|> <mem> zorbex was born in kalmar . </mem> <answer> kalmar ; vestria </answer>";
  const { ids, unknown } = encode(tok, text);
  assert.equal(unknown, 0);
  assert.equal(decode(tok, ids), text);
  const miss = encode(tok, "Zorbex flew to Mars");
  assert.equal(miss.unknown, 3);
  assert.equal(miss.ids.filter((i) => i === tok.unkId).length, 3);
  assert.equal(tok.special("</search>"), SPECIAL_TOKENS.indexOf("</search>"));
  assert.deepEqual(splitWords("a<think>b</think>"), ["a", "<think>", "b", "</think>"]);
});

Deno.test("tokenizer.json: Hugging Face WordLevel layout; round trip; bad files refused", () => {
  const tok = buildTokenizer(corpus);
  const json = JSON.parse(tokenizerToJson(tok));
  assert.equal(json.model.type, "WordLevel");
  assert.equal(json.model.unk_token, "<unk>");
  assert.equal(json.pre_tokenizer.type, "Whitespace");
  assert.deepEqual(json.added_tokens[7], {
    id: 7,
    content: "<mem>",
    single_word: false,
    lstrip: false,
    rstrip: false,
    normalized: false,
    special: true,
  });
  const back = tokenizerFromJson(tokenizerToJson(tok));
  assert.deepEqual(back.tokens, tok.tokens);
  const broken = { ...json, model: { ...json.model, vocab: { ...json.model.vocab, extra: 3 } } };
  assert.throws(() => tokenizerFromJson(JSON.stringify(broken)), /model.vocab\["extra"\] has a bad or duplicate id 3/);
  const noSpecial = { ...json, model: { ...json.model, vocab: { a: 0 } } };
  assert.throws(() => tokenizerFromJson(JSON.stringify(noSpecial)), /special token <pad> is missing/);
  assert.throws(() => decode(tok, [9999]), /id 9999 is outside the vocabulary/);
});
