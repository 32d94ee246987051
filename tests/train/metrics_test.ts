import assert from "node:assert/strict";
import { episodeMetrics, explainedVariance } from "../../lib/train/metrics.ts";
import { assertAllClose } from "../../lib/testing/all_close.ts";

Deno.test("explainedVariance() and episodeMetrics()", () => {
  assertAllClose(explainedVariance([0, 1, 1], [0, 1, 2]), 1 - (2 / 9) / (2 / 3));
  assert.ok(Number.isNaN(explainedVariance([1, 2], [3, 3])));
  const ep = (reward: number, em: number[], valid: boolean) =>
    ({ reward, score: { em, f1: em }, formatValid: valid, turns: [{}], totalTokens: 100, peakContext: 60 }) as never;
  const m = episodeMetrics([ep(1, [1, 1], true), ep(0, [1, 0], false)]);
  assert.equal(m["rollout/reward_mean"], 0.5);
  assert.equal(m["rollout/em"], 0.75);
  assert.equal(m["rollout/format_valid"], 0.5);
  assert.equal(m["rollout/total_tokens"], 100);
});
