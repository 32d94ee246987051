import assert from "node:assert/strict";
import { buildData, loadData } from "../../lib/data/build.ts";
import { createTeacher } from "../../lib/env/teacher.ts";
import type { AgentPolicy } from "../../lib/env/rollout.ts";
import { modelPreset } from "../../lib/model/config.ts";
import { createModel } from "../../lib/model/params.ts";
import { equalRewardGroups, equalRewardGroupsMarkdown } from "../../lib/eval/equal_reward_groups.ts";

const dir = await Deno.makeTempDir();
await buildData(dir, 21, { trainCount: 2, testCount: 4, testObjectives: [1, 4] });
const data = await loadData(dir);

/**
 * The perfect teacher, except that rollout m of question q writes a turn without an action (an invalid format ends
 * the episode with reward 0) where `wrong(q, m)`: the rewards are whatever the pattern says.
 */
function scripted(G: number, wrong: (objectives: number, q: number, m: number) => boolean): AgentPolicy {
  const teacher = createTeacher(data.tokenizer, { dropProbability: 0 });
  const broken = [data.tokenizer.special("</mem>")];
  return {
    async nextTurns(requests, options) {
      const out = await teacher.nextTurns(requests, options);
      return out.map((o, i) => {
        const e = requests[i]!.episode;
        const k = e.score.em.length;
        return wrong(k, Math.floor(e.id / G), e.id % G) ? { tokens: broken, logProbs: [0] } : o;
      });
    },
  };
}

Deno.test("equalRewardGroups(): the equal, all-wrong and all-right shares and the mean reward of a policy whose rewards are set", async () => {
  const G = 3;
  // 1 objective: q0 all right, q1 mixed, q2 all wrong, q3 mixed → equal 2/4, all wrong 1/4, all right 1/4, reward 6/12
  // 4 objectives: every rollout wrong → equal 1, all wrong 1, reward 0
  const pattern = [[false, false, false], [true, false, false], [true, true, true], [false, true, true]];
  const policy = scripted(G, (k, q, m) => (k === 4 ? true : pattern[q]![m]!));
  const rows = await equalRewardGroups(
    [{ name: "Scripted", policy, maxPositions: 512, contextPolicy: "memory" }],
    data,
    { questions: 4, groupSize: G, maxTurns: 20, maxTurnTokens: 96 },
  );
  assert.deepEqual(rows.map((r) => r.objectives), [1, 4]);
  const [one, four] = rows;
  assert.deepEqual(
    [one!.groups, one!.groupSize, one!.equalShare, one!.allWrongShare, one!.allRightShare, one!.rewardMean],
    [4, 3, 0.5, 0.25, 0.25, 0.5],
  );
  assert.deepEqual([four!.equalShare, four!.allWrongShare, four!.allRightShare, four!.rewardMean], [1, 1, 0, 0]);
  // N caps the questions
  const two = await equalRewardGroups(
    [{ name: "Scripted", policy, maxPositions: 512, contextPolicy: "memory" }],
    data,
    { questions: 2, groupSize: G, maxTurns: 20, maxTurnTokens: 96 },
  );
  assert.deepEqual([two[0]!.groups, two[0]!.equalShare, two[0]!.rewardMean], [2, 0.5, 5 / 6]);
  const md = equalRewardGroupsMarkdown(rows);
  assert.match(md, /\| Scripted \(memory\) \| 50 % \(25 % all wrong\) \/ 0.50 \| 100 % \(100 % all wrong\) \/ 0.00 \|/);
  assert.equal(equalRewardGroupsMarkdown([]), "");
  await assert.rejects(
    equalRewardGroups([], data, { questions: 0, groupSize: 2, maxTurns: 1, maxTurnTokens: 8 }),
    /questions must be an integer ≥ 1, current value is 0/,
  );
});

Deno.test("equalRewardGroups(): a model agent samples (seeded): the same rows twice, and an untrained model's groups are all wrong", async () => {
  const model = createModel(modelPreset("tiny", data.tokenizer.size), { seed: 4 });
  const agents = [{ name: "Untrained", model, contextPolicy: "memory" as const }];
  const options = { questions: 2, groupSize: 2, maxTurns: 3, maxTurnTokens: 12, seed: 1 };
  const a = await equalRewardGroups(agents, data, options);
  assert.deepEqual(await equalRewardGroups(agents, data, options), a);
  for (const r of a) assert.deepEqual([r.equalShare, r.allWrongShare, r.rewardMean], [1, 1, 0]);
  model.dispose();
});
