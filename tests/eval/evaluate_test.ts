import assert from "node:assert/strict";
import { buildData, loadData } from "../../lib/data/build.ts";
import { modelPreset } from "../../lib/model/config.ts";
import { createModel } from "../../lib/model/params.ts";
import { evalMarkdown, evaluateAgents, runAgents } from "../../lib/eval/evaluate.ts";

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
  const [full1, full4, mem1, mem4] = rows;
  // one search and the answer at 1 objective: both contexts see the same tokens
  assert.equal(mem1!.totalTokens, full1!.totalTokens);
  assert.ok(mem4!.totalTokens < 0.8 * full4!.totalTokens && mem4!.peakContext < full4!.peakContext);
  model.dispose();
});
