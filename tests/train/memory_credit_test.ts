import assert from "node:assert/strict";
import { buildData, loadData } from "../../lib/data/build.ts";
import { createTeacher } from "../../lib/env/teacher.ts";
import { runEpisodes } from "../../lib/env/rollout.ts";
import { modelPreset } from "../../lib/model/config.ts";
import { createModel } from "../../lib/model/params.ts";
import { scoreContinuations } from "../../lib/model/score.ts";
import { memoryRewardPairs } from "../../lib/env/memory_inputs.ts";
import { computeMemoryCredit } from "../../lib/train/memory_credit.ts";
import { infomemAdvantages, memoryAdvantages } from "../../lib/advantage/memory_advantage.ts";
import { memoryReward } from "../../lib/advantage/memory_reward.ts";
import { tasksFromRecords } from "../../lib/train/demos.ts";
import { assertAllClose } from "../../lib/testing/all_close.ts";
import { firstSeed } from "../_helpers.ts";

Deno.test("computeMemoryCredit(): one batched scoring equals per-pair scoring; pooled per question", async () => {
  const dir = await Deno.makeTempDir();
  await buildData(dir, 12, { trainCount: 3, testCount: 1 });
  const data = await loadData(dir);
  const model = createModel(modelPreset("tiny", data.tokenizer.size), { seed: 5 });
  const tasks = [...tasksFromRecords(data.train.slice(0, 2)), ...tasksFromRecords(data.train.slice(0, 2))];
  const episodes = await runEpisodes(createTeacher(data.tokenizer, { dropProbability: 0.5 }), tasks, data, {
    contextPolicy: "memory",
  });
  const credit = await computeMemoryCredit(model, episodes, data.tokenizer, { epsilon: 1e-6 });
  const pairs = episodes.flatMap((e) => memoryRewardPairs(e, data.tokenizer));
  assert.equal(credit.stats.turns, pairs.length);
  // recompute one pair by hand: P = exp(mean log-prob of the gold tokens)
  const p = pairs[0]!;
  const [mem] = await scoreContinuations(model, [{ context: p.memContext, continuation: p.continuation }], {
    padId: 0,
  });
  const [full] = await scoreContinuations(model, [{ context: p.fullContext, continuation: p.continuation }], {
    padId: 0,
  });
  const gm = (lp: number[]) =>
    Math.exp(lp.filter((_, i) => p.answerMask[i]).reduce((a, b) => a + b, 0) / p.answerMask.reduce((a, b) => a + b, 0));
  assertAllClose(credit.rewards[p.episode]![p.turn]!, gm(mem!) - gm(full!), { rtol: 1e-4, atol: 1e-6 });
  // turn 1 never has memory credit; per question, the advantages sum to ~0
  for (const row of credit.advantages) assert.equal(row[0], null);
  for (const g of [0, 1]) {
    const adv = credit.advantages.filter((_, i) => episodes[i]!.task.groupId === g).flat().filter((a): a is number =>
      a !== null
    );
    if (adv.length > 1) assertAllClose(adv.reduce((a, b) => a + b, 0), 0, { atol: 1e-9 });
  }
  // pool "turn": the same rewards, normalised per (question, turn index)
  const perTurn = await computeMemoryCredit(model, episodes, data.tokenizer, { epsilon: 1e-6, pool: "turn" });
  assert.deepEqual(perTurn.rewards, credit.rewards);
  const expected = memoryAdvantages({ rewards: credit.rewards, groupIds: episodes.map((e) => e.task.groupId) }, {
    epsilon: 1e-6,
    pool: "turn",
  });
  assert.deepEqual(perTurn.advantages, expected);
  assert.notDeepEqual(perTurn.advantages, credit.advantages);
  // threshold and coverage reach memoryReward: a threshold between the pair's gold-token probabilities keeps only
  // some tokens, so coverage changes P; the batched value equals memoryReward on this pair's own scoring
  const gold = mem!.filter((_, i) => p.answerMask[i] === 1).sort((a, b) => a - b);
  assert.ok(gold.length >= 2 && gold[0]! < gold[gold.length - 1]!, "the pair needs gold tokens of different log-probs");
  const threshold = Math.exp((gold[0]! + gold[gold.length - 1]!) / 2);
  const one = { memAnswerLogProbs: [mem!], fullAnswerLogProbs: [full!], answerMask: [p.answerMask] };
  const expected1 = memoryReward(one, { threshold, coverage: true }).reward[0]!;
  assert.notEqual(expected1, memoryReward(one, { threshold }).reward[0]!, "coverage must matter for this pair");
  const covered = await computeMemoryCredit(model, episodes, data.tokenizer, {
    epsilon: 1e-6,
    threshold,
    coverage: true,
  });
  assertAllClose(covered.rewards[p.episode]![p.turn]!, expected1, { rtol: 1e-3, atol: 0 });
  // episodes that repeat ids: the credit goes by place in the list
  const clashing = episodes.map((e) => ({ ...e, id: 0 }));
  assert.deepEqual(await computeMemoryCredit(model, clashing, data.tokenizer, { epsilon: 1e-6 }), credit);
  assert.ok(credit.rewards.filter((row) => row.some((x) => x !== null)).length > 1, "credit on several episodes");
  model.dispose();
});

Deno.test("computeMemoryCredit(variant infomem): wrong trajectories get A^M = 0, right ones InfoMem's; all right = MemPO", async () => {
  const dir = await Deno.makeTempDir();
  await buildData(dir, 12, { trainCount: 4, testCount: 1 });
  const data = await loadData(dir);
  const model = createModel(modelPreset("tiny", data.tokenizer.size), { seed: 5 });
  const tasks = [...tasksFromRecords(data.train.slice(0, 2)), ...tasksFromRecords(data.train.slice(0, 2))];
  const run = (dropProbability: number, seed = 3) =>
    runEpisodes(createTeacher(data.tokenizer, { dropProbability, seed }), tasks, data, { contextPolicy: "memory" });
  // the perfect teacher: every trajectory right, so InfoMem's credit is MemPO's
  const right = await run(0);
  assert.ok(right.every((e) => e.reward === 1));
  const mempo = await computeMemoryCredit(model, right, data.tokenizer, { epsilon: 1e-6 });
  const infomem = await computeMemoryCredit(model, right, data.tokenizer, { epsilon: 1e-6, variant: "infomem" });
  assert.ok(mempo.stats.turns > 0);
  assert.deepEqual(infomem, mempo);
  // a forgetful teacher: some wrong trajectories, whose memories get no advantage (the first seed that mixes both)
  const mixed = await firstSeed(3, 30, (seed) => run(0.5, seed), (eps) => {
    const rewards = eps.map((e) => e.reward);
    return rewards.includes(0) && rewards.includes(1);
  }, "trajectories both right and wrong");
  const outcomes = mixed.map((e) => e.reward);
  const gated = await computeMemoryCredit(model, mixed, data.tokenizer, { epsilon: 1e-6, variant: "infomem" });
  const groupIds = mixed.map((e) => e.task.groupId);
  assert.deepEqual(
    gated.advantages,
    infomemAdvantages({ rewards: gated.rewards, groupIds, outcomes }, { epsilon: 1e-6 }),
  );
  gated.advantages.forEach((row, i) => {
    if (outcomes[i] === 0) assert.ok(row.every((a) => a === null || a === 0), `trajectory ${i}: ${row}`);
  });
  await assert.rejects(
    computeMemoryCredit(model, mixed, data.tokenizer, { variant: "gated" as never }),
    /variant must be "mempo" or "infomem", current value is "gated"/,
  );
  model.dispose();
});
