import assert from "node:assert/strict";
import {
  AGENT_ORDER,
  agentSlots,
  SERIES_COLORS,
  SERIES_DASHES,
  SERIES_SYMBOLS,
  seriesStyle,
} from "../../lib/viz/series_style.ts";
import { AGENT_NAMES, SFT_AGENT, TEACHER_AGENT } from "../../lib/eval/evaluate.ts";

Deno.test("seriesStyle(): the first slots differ in colour, marker and dash; each list cycles", () => {
  const first = [0, 1, 2, 3].map(seriesStyle);
  for (const key of ["color", "symbol", "dash"] as const) {
    assert.equal(new Set(first.map((s) => s[key])).size, 4, key);
  }
  assert.equal(new Set([0, 1, 2, 3, 4, 5, 6].map((i) => seriesStyle(i).symbol)).size, 7);
  assert.equal(seriesStyle(SERIES_SYMBOLS.length).symbol, "circle");
  assert.equal(seriesStyle(SERIES_COLORS.length).color, SERIES_COLORS[0]);
  assert.equal(seriesStyle(SERIES_DASHES.length + 1).dash, "6 3");
  assert.throws(() => seriesStyle(-1), /slot must be an integer ≥ 0, got -1/);
  assert.throws(() => seriesStyle(1.5), /got 1.5/);
});

Deno.test("agentSlots(): every agent the evaluation names has a fixed slot; others follow in order", () => {
  // AGENT_ORDER (viz/ sits below eval/ and cannot import the names) holds exactly the evaluation's agents
  assert.deepEqual([...AGENT_ORDER].sort(), [TEACHER_AGENT, SFT_AGENT, ...Object.values(AGENT_NAMES)].sort());
  assert.deepEqual([...agentSlots(["GRPO", "x", "Teacher", "y", "x"])], [["GRPO", 3], ["x", 5], ["Teacher", 0], [
    "y",
    6,
  ]]);
  assert.deepEqual([...agentSlots([])], []);
});
