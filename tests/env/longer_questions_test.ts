import assert from "node:assert/strict";
import { lengthenQuestion } from "../../lib/env/longer_questions.ts";

Deno.test("lengthenQuestion(): an unknown way refused, naming it", () => {
  assert.throws(
    () => lengthenQuestion("a ?", ["a"], [], "pad" as never),
    /how must be one of objectives, filler, current value is "pad"/,
  );
});
