import assert from "node:assert/strict";
import { extractSolution, parseTurn, validateFormat } from "../../lib/env/format.ts";
import { SOLUTION_CASES, TRAJECTORY_CASES, TURN_CASES } from "./_reward_cases.ts";

Deno.test("validateFormat(): every rule has a passing and a failing case", async (t) => {
  const rules = [...new Set(TURN_CASES.map(([rule]) => rule))];
  assert.ok(rules.length >= 7, rules.join(", "));
  for (const rule of rules) {
    await t.step(rule, () => {
      for (const [, text, expected] of TURN_CASES.filter(([r]) => r === rule)) {
        const r = parseTurn(text);
        if (expected instanceof RegExp) {
          assert.equal(r.ok, false, text);
          if (!r.ok) assert.match(r.reason, expected);
        } else assert.deepEqual(r, { ok: true, value: expected }, text);
      }
    });
  }
  await t.step("trajectory rules: at least one search, the answer ends the episode, an answer at the end", () => {
    for (const [turns, expected] of TRAJECTORY_CASES) {
      const r = validateFormat(turns);
      if (expected === true) assert.ok(r.ok, turns.join(" | "));
      else assert.deepEqual(r, { ok: false, reason: expected });
    }
  });
});

Deno.test("extractSolution() takes the last complete answer", () => {
  for (const [text, expected] of SOLUTION_CASES) assert.equal(extractSolution(text), expected, text);
});
