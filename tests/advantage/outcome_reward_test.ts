import assert from "node:assert/strict";
import { placeOutcomeReward } from "../../lib/advantage/outcome_reward.ts";

Deno.test("placeOutcomeReward() puts the score on the last sampled token", () => {
  assert.deepEqual(placeOutcomeReward([2, -1, 3], [[1, 1, 1, 0], [0, 0, 0, 0], [1, 0, 1, 0]]), [
    [0, 0, 2, 0],
    [0, 0, 0, 0], // empty row: no reward
    [0, 0, 3, 0],
  ]);
});

Deno.test("placeOutcomeReward() rejects mismatched input", () => {
  assert.throws(() => placeOutcomeReward([1, 2], [[1]]), /mask must have 2 rows like scores/);
  assert.throws(() => placeOutcomeReward([NaN], [[1]]), /scores\[0\] must be a finite number/);
});
