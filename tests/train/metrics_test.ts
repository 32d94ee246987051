import assert from "node:assert/strict";
import { episodeMetrics, equalGroupShare, explainedVariance } from "../../lib/train/metrics.ts";
import { assertAllClose } from "../../lib/testing/all_close.ts";

Deno.test("explainedVariance() and episodeMetrics()", () => {
  assertAllClose(explainedVariance([0, 1, 1], [0, 1, 2]), 1 - (2 / 9) / (2 / 3));
  assert.ok(Number.isNaN(explainedVariance([1, 2], [3, 3])));
  const ep = (reward: number, em: number[], valid: boolean, peakContext = 60) =>
    ({ reward, score: { em, f1: em }, formatValid: valid, turns: [{}], totalTokens: 100, peakContext }) as never;
  const m = episodeMetrics([ep(1, [1, 1], true), ep(0, [1, 0], false, 90)]);
  assert.equal(m["rollout/reward_mean"], 0.5);
  assert.equal(m["rollout/em"], 0.75);
  assert.equal(m["rollout/format_valid"], 0.5);
  assert.equal(m["rollout/total_tokens"], 100);
  assert.equal(m["rollout/peak_context"], 75, "the mean");
  assert.equal(m["rollout/peak_context_max"], 90, "the longest");
});

Deno.test("equalGroupShare(): all-equal groups over groups, against a loop over every pair of a group", () => {
  const scores = [1, 1, 1, 0, 1, 0, 0, 0, 0.5, 0.5, 1];
  const ids = [0, 0, 0, 1, 1, 1, "2", "2", 3, 3, 4];
  // reference: a group is equal when no two of its members differ
  const groups = [...new Set(ids)];
  const equal = groups.filter((g) => {
    const members = ids.flatMap((id, i) => (id === g ? [scores[i]!] : []));
    return members.every((a) => members.every((b) => a === b));
  });
  assert.deepEqual(equalGroupShare(scores, ids), { share: equal.length / groups.length, groups: 5 });
  assert.deepEqual(equalGroupShare(scores, ids), { share: 4 / 5, groups: 5 }); // only group 1 = {0, 1, 0} differs
  assert.deepEqual(equalGroupShare([], []), { share: 0, groups: 0 });
  assert.throws(() => equalGroupShare([1], []), /groupIds must have one id per score \(1\), current length is 0/);
});
