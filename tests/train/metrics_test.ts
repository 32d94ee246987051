import assert from "node:assert/strict";
import {
  episodeMetrics,
  equalGroupMetrics,
  equalGroupShare,
  explainedVariance,
  groupShare,
  rewardsEqual,
  rlStages,
} from "../../lib/train/metrics.ts";
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

Deno.test("groupShare(): groups formed by id in any order, the test sees each group's scores in episode order", () => {
  const scores = [0, 1, 1, 0, 0, 1, 1];
  const ids = ["b", "a", "b", "c", "a", "d", "d"]; // a = [1, 0], b = [0, 1], c = [0], d = [1, 1]
  const seen: number[][] = [];
  const r = groupShare(scores, ids, (s) => (seen.push([...s]), s.every((x) => x === 1)));
  assert.deepEqual(seen, [[0, 1], [1, 0], [0], [1, 1]]); // first appearance order: b, a, c, d
  assert.deepEqual(r, { share: 1 / 4, groups: 4 });
  assert.deepEqual(groupShare(scores, ids, (s) => s.every((x) => x === 0)), { share: 1 / 4, groups: 4 });
  assert.deepEqual(groupShare([], [], () => true), { share: 0, groups: 0 });
  assert.throws(
    () => groupShare([1, 2], [0], () => true),
    /groupIds must have one id per score \(2\), current length is 1/,
  );
});

Deno.test("equalGroupMetrics(): the share overall and per objective count, against equalGroupShare on each subset", () => {
  // 6 questions × 3 rollouts: objectives 1, 2, 4, 1, 2, 4; rewards chosen so each count has one equal and one mixed group
  // but the 4-objective groups are both all-wrong (equal)
  const rewards = [[1, 1, 1], [0, 1, 0], [0, 0, 0], [1, 0, 1], [1, 1, 1], [0, 0, 0]];
  const objectives = [1, 2, 4, 1, 2, 4];
  const episodes = rewards.flatMap((rs, q) =>
    rs.map((reward) => ({ reward, task: { groupId: q, targets: Array.from({ length: objectives[q]! }, () => ["a"]) } }))
  ) as never[];
  const m = equalGroupMetrics(episodes);
  assert.deepEqual(Object.keys(m), [
    "grpo/frac_zero_std",
    "grpo/frac_zero_std_k1",
    "grpo/frac_zero_std_k2",
    "grpo/frac_zero_std_k4",
  ]);
  assert.equal(m["grpo/frac_zero_std"], 4 / 6);
  assert.equal(m["grpo/frac_zero_std_k1"], 1 / 2);
  assert.equal(m["grpo/frac_zero_std_k2"], 1 / 2);
  assert.equal(m["grpo/frac_zero_std_k4"], 1);
  // the overall share is the groups-weighted mean of the per-count shares (2 groups each)
  assertAllClose(
    (m["grpo/frac_zero_std_k1"] as number + (m["grpo/frac_zero_std_k2"] as number) +
      (m["grpo/frac_zero_std_k4"] as number)) / 3,
    m["grpo/frac_zero_std"] as number,
  );
  assert.deepEqual(equalGroupMetrics([]), { "grpo/frac_zero_std": 0 });
});

Deno.test("rlStages(): the algorithms a log holds, in the order of their first rows; other stages left out", () => {
  const rows = [
    { stage: "pretrain", step: 0 },
    { stage: "sft", step: 0 },
    { stage: "grpo", step: 0 },
    { stage: "ppo", step: 0 },
    { stage: "grpo", step: 1 },
    { stage: "dpo", step: 0 }, // not an algorithm of the package
    { stage: "mempo", step: 0 },
  ];
  assert.deepEqual(rlStages(rows), ["grpo", "ppo", "mempo"]);
  assert.deepEqual(rlStages(rows.slice(0, 2)), []);
  assert.deepEqual(rlStages([]), []);
});

Deno.test("rewardsEqual(): true only when no two scores of the group differ, against a loop over every pair", () => {
  const groups = [[], [0], [1, 1, 1], [0, 0, 1], [1, 0], [0.5, 0.5], [0.5, 0.25], [0, -0]];
  for (const g of groups) {
    const pairsEqual = g.every((a) => g.every((b) => a === b));
    assert.equal(rewardsEqual(g), pairsEqual, JSON.stringify(g));
  }
});
