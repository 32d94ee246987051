import assert from "node:assert/strict";
import { buildTokenizer, decode } from "../../lib/text/tokenizer.ts";
import { buildContext, chatTemplate, SYSTEM_PROMPT } from "../../lib/env/context.ts";

const tok = buildTokenizer([SYSTEM_PROMPT, "q a b c d"]);
const tpl = chatTemplate(tok);
const history = [
  { assistant: [...tpl.turnPrefix, 20], tool: [21, 21] },
  { assistant: [...tpl.turnPrefix, 22], tool: [23, 23] },
  { assistant: [...tpl.turnPrefix, 24], tool: [25, 25] },
];

Deno.test("buildContext(): full keeps every turn, memory only the latest; both end with the forced prefix", () => {
  const header = tpl.header("q");
  assert.ok(decode(tok, header).startsWith("<|system|> answer the questions"));
  const full = buildContext(header, history, tpl, { policy: "full", maxTokens: 1000 });
  const mem = buildContext(header, history, tpl, { policy: "memory", maxTokens: 1000 });
  assert.equal(full.tokens.length, header.length + 3 * (3 + 1 + 2) + 2);
  assert.equal(mem.tokens.length, header.length + (3 + 1 + 2) + 2);
  assert.deepEqual(mem.tokens.slice(header.length, header.length + 3), [...tpl.turnPrefix, 24]);
  assert.deepEqual(full.tokens.slice(-2), tpl.turnPrefix);
  assert.equal(full.droppedTurns, 0);
  assert.equal(buildContext(header, [], tpl, { policy: "memory", maxTokens: 1000 }).droppedTurns, 0);
});

Deno.test("buildContext(): full drops the oldest turns (question kept) beyond the limit", () => {
  const header = tpl.header("q");
  const limit = header.length + 2 + 2 * 6;
  const cut = buildContext(header, history, tpl, { policy: "full", maxTokens: limit });
  assert.equal(cut.droppedTurns, 1);
  assert.deepEqual(cut.tokens.slice(0, header.length), header);
  assert.ok(cut.tokens.length <= limit);
  assert.throws(() => buildContext(header, history, tpl, { policy: "full", maxTokens: 5 }), /the question alone needs/);
});

Deno.test("chatTemplate().message(): one message as <|role|> content <|end|>; header and tool messages are messages", () => {
  const ids = (text: string) => text.split(" ").map((w) => tok.vocab.get(w)!);
  assert.deepEqual(tpl.message("user", "q a"), ids("<|user|> q a <|end|>"));
  assert.deepEqual(tpl.message("assistant", "b"), ids("<|assistant|> b <|end|>"));
  assert.deepEqual(tpl.header("q"), [...tpl.message("system", SYSTEM_PROMPT), ...tpl.message("user", "q")]);
  assert.deepEqual(tpl.toolMessage("c d"), tpl.message("user", "c d"));
  assert.equal(decode(tok, tpl.header("q")), `<|system|> ${SYSTEM_PROMPT} <|end|> <|user|> q <|end|>`);
  assert.throws(
    () => tpl.message("tool", "x"),
    /role must be system, user or assistant, current value is "tool"/,
  );
});
