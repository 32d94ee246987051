import assert from "node:assert/strict";
import { buildData, loadData } from "../../lib/data/build.ts";
import { modelPreset } from "../../lib/model/config.ts";
import { createModel } from "../../lib/model/params.ts";
import { evalMarkdown, evaluateAgents, evaluateCell, runAgents } from "../../lib/eval/evaluate.ts";
import type { EpisodeRecord } from "../../lib/episodes/episode_record.ts";
import { runEpisodes } from "../../lib/env/rollout.ts";
import { createTeacher } from "../../lib/env/teacher.ts";
import { assertAllClose } from "../../lib/testing/all_close.ts";
import { tasksFromRecords } from "../../lib/train/demos.ts";

Deno.test("evaluateAgents() fills one row per agent and test set; evalMarkdown() lays them out", async () => {
  const dir = await Deno.makeTempDir();
  await buildData(dir, 15, { trainCount: 2, testCount: 2, testObjectives: [1, 2] });
  const data = await loadData(dir);
  const model = createModel(modelPreset("tiny", data.tokenizer.size), { seed: 1 });
  const rows = await evaluateAgents(
    [{ name: "untrained", model, contextPolicy: "full" }, { name: "untrained", model, contextPolicy: "memory" }],
    data,
    { questions: 2, maxTurns: 3, maxTurnTokens: 12 },
  );
  assert.equal(rows.length, 4);
  for (const r of rows) {
    assert.equal(r.episodes, 2);
    assert.equal(r.em, 0);
    assert.ok(r.totalTokens > 0 && r.peakContext > 0 && r.peakContext <= r.totalTokens);
    assert.deepEqual(r.questionEm, [0, 0]);
    assert.ok(r.maxPeakContext! >= r.peakContext);
  }
  const md = evalMarkdown(rows);
  assert.match(md, /\| untrained \(full\) \| 0.00 \/ 0.00 \/ \d+ \/ \d+ \| 0.00/);
  assert.equal(md.split("\n").length, 4);
  model.dispose();
});

Deno.test("evaluateAgents(): the teacher (runAgents) scores 1 everywhere; under memory context it spends fewer tokens", async () => {
  const dir = await Deno.makeTempDir();
  await buildData(dir, 16, { trainCount: 2, testCount: 3, testObjectives: [1, 4] });
  const data = await loadData(dir);
  const model = createModel(modelPreset("tiny", data.tokenizer.size), { seed: 1 });
  const teachers = runAgents(model, new Map(), data.tokenizer).filter((a) => a.name === "Teacher");
  const rows = await evaluateAgents(teachers, data, { questions: 3, maxTurns: 40, maxTurnTokens: 96 });
  assert.deepEqual(rows.map((r) => [r.contextPolicy, r.objectives]), [["full", 1], ["full", 4], ["memory", 1], [
    "memory",
    4,
  ]]);
  for (const r of rows) {
    assert.deepEqual([r.em, r.f1, r.formatValid, r.reward], [1, 1, 1, 1], `${r.contextPolicy} ${r.objectives}`);
  }
  for (const r of rows) assert.deepEqual(r.questionEm, [1, 1, 1]);
  const [full1, full4, mem1, mem4] = rows;
  // one search and the answer at 1 objective: both contexts see the same tokens
  assert.equal(mem1!.totalTokens, full1!.totalTokens);
  assert.ok(mem4!.totalTokens < 0.8 * full4!.totalTokens && mem4!.peakContext < full4!.peakContext);
  model.dispose();
});

Deno.test("evaluateAgents(): questionEm holds each question's mean EM (their mean is em); maxPeakContext the longest episode", async () => {
  const dir = await Deno.makeTempDir();
  await buildData(dir, 17, { trainCount: 2, testCount: 6, testObjectives: [4] });
  const data = await loadData(dir);
  // a forgetful teacher: some questions lose answers, so the per-question EMs differ
  const policy = createTeacher(data.tokenizer, { dropProbability: 0.5, seed: 2 });
  const config = { questions: 6, maxTurns: 40, maxTurnTokens: 96 };
  const [row] = await evaluateAgents([{ name: "T", policy, maxPositions: 512, contextPolicy: "memory" }], data, config);
  // reference: the same episodes run directly, scored per question by hand
  const eps = await runEpisodes(policy, tasksFromRecords(data.test.get(4)!), data, {
    contextPolicy: "memory",
    maxTurns: 40,
    maxTurnTokens: 96,
    maxPositions: 512,
    seed: 0,
  });
  const perQuestion = eps.map((e) => e.score.em.reduce((a, b) => a + b, 0) / e.score.em.length);
  assert.deepEqual(row!.questionEm, perQuestion);
  assert.ok(new Set(perQuestion).size > 1, `per-question EM ${perQuestion}`);
  assertAllClose(row!.em, perQuestion.reduce((a, b) => a + b, 0) / 6, { rtol: 1e-12, atol: 0 });
  assert.equal(row!.maxPeakContext, Math.max(...eps.map((e) => e.peakContext)));
  assert.ok(row!.maxPeakContext! > row!.peakContext, "episodes differ in length");
  // per question, in test-set order: tokens, peak, format validity and turns of the same episodes
  assert.deepEqual(row!.questionTokens, eps.map((e) => e.totalTokens));
  assert.deepEqual(row!.questionPeak, eps.map((e) => e.peakContext));
  assert.deepEqual(row!.questionValid, eps.map((e) => e.formatValid));
  assert.deepEqual(row!.questionTurns, eps.map((e) => e.turns.length));
  const avg = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  assertAllClose(row!.totalTokens, avg(row!.questionTokens!), { rtol: 1e-12, atol: 0 });
  assertAllClose(row!.peakContext, avg(row!.questionPeak!), { rtol: 1e-12, atol: 0 });
  assert.equal(row!.formatValid, row!.questionValid!.filter(Boolean).length / 6);
  assert.ok(new Set(row!.questionTurns).size > 1, `turns ${row!.questionTurns}`);
});

Deno.test("evaluateCell(): its episodes as records, one per question in test-set order, with the row's own numbers", async () => {
  const dir = await Deno.makeTempDir();
  await buildData(dir, 18, { trainCount: 2, testCount: 3, testObjectives: [2] });
  const data = await loadData(dir);
  const policy = createTeacher(data.tokenizer, { dropProbability: 0 });
  const agent = { name: "Teacher", policy, maxPositions: 1024, contextPolicy: "full" as const };
  const config = { questions: 3, maxTurns: 20, maxTurnTokens: 96 };
  let records: EpisodeRecord[] = [];
  const row = await evaluateCell(agent, data, 2, config, (r) => void (records = r));
  assert.deepEqual(row, await evaluateCell(agent, data, 2, config));
  assert.deepEqual(records.map((r) => [r.stage, r.agent, r.contextPolicy, r.objectives, r.index]), [
    ["eval", "Teacher", "full", 2, 0],
    ["eval", "Teacher", "full", 2, 1],
    ["eval", "Teacher", "full", 2, 2],
  ]);
  assert.deepEqual(records.map((r) => r.question), data.test.get(2)!.map((q) => q.question));
  assert.deepEqual(records.map((r) => r.totalTokens), row.questionTokens);
  assert.deepEqual(records.map((r) => r.turns.length), row.questionTurns);
  assert.ok(records.every((r) => r.turns.every((t) => t.advantages === undefined)), "no advantages in an evaluation");
});
