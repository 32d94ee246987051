import assert from "node:assert/strict";
import { extractSolution, parseTurn, validateFormat } from "../../lib/env/format.ts";

const OK_SEARCH = "<mem> none </mem> <think> 1 born x </think> <search> x born </search>";
const OK_ANSWER = "<mem> 1 = y </mem> <think> answer </think> <answer> y </answer>";

Deno.test("validateFormat(): every rule has a passing and a failing case", async (t) => {
  const bad = (text: string, re: RegExp) => {
    const r = parseTurn(text);
    assert.equal(r.ok, false, text);
    if (!r.ok) assert.match(r.reason, re);
  };
  await t.step("well-formed turns and trajectory pass", () => {
    assert.ok(parseTurn(OK_SEARCH).ok && parseTurn(OK_ANSWER).ok);
    assert.ok(validateFormat([OK_SEARCH, OK_ANSWER]).ok);
  });
  await t.step("rule 1: no tool tags or role markers written by the model", () => {
    bad("<mem> a </mem> <think> b </think> <search> c </search> <information> d </information>", /tool tag/);
    bad("<mem> a </mem> <think> b </think> <|user|> <search> c </search>", /chat-role/);
  });
  await t.step("rule 2: balanced, not nested", () => {
    bad("<mem> a <think> b </think> </mem> <search> c </search>", /opened inside <mem>/);
    bad("<mem> a </mem> <think> b </think> <search> c", /never closed/);
    bad("<mem> a </mem> </think> <search> c </search>", /<\/think> without a matching/);
  });
  await t.step("rule 3: <mem> first", () => {
    bad("<think> b </think> <mem> a </mem> <search> c </search>", /must start with <mem>/);
  });
  await t.step("rule 4: <think> after </mem>", () => {
    bad("<mem> a </mem> <search> c </search>", /<think> must follow <\/mem>/);
  });
  await t.step("rule 5: exactly one action after </think>", () => {
    bad("<mem> a </mem> <think> b </think>", /found none/);
    bad("<mem> a </mem> <think> b </think> <search> c </search> <answer> d </answer>", /found search, answer/);
    bad("<mem> a </mem> <think> b </think> <mem> c </mem>", /found mem/);
  });
  await t.step("rule 6: no text outside tags or after the action", () => {
    bad("<mem> a </mem> hello <think> b </think> <search> c </search>", /text outside the tags/);
    bad(`${OK_ANSWER} and more`, /text after the action/);
  });
  await t.step("trajectory rules: at least one search, the answer ends the episode, an answer at the end", () => {
    assert.deepEqual(validateFormat([OK_ANSWER]), { ok: false, reason: "turn 1: answered without any search" });
    assert.deepEqual(validateFormat([OK_SEARCH, OK_ANSWER, OK_SEARCH]), {
      ok: false,
      reason: "turn 2: an answer must end the episode",
    });
    assert.deepEqual(validateFormat([OK_SEARCH]), { ok: false, reason: "turn 1: the episode ended without an answer" });
    assert.deepEqual(validateFormat([]), { ok: false, reason: "no turns" });
  });
});

Deno.test("extractSolution() takes the last complete answer", () => {
  assert.equal(extractSolution(OK_ANSWER), "y");
  assert.equal(extractSolution("no answer"), null);
  assert.equal(extractSolution("<answer>a</answer><answer> b ; c </answer>"), "b ; c");
});
