import assert from "node:assert/strict";
import { buildData, loadData } from "../../lib/data/build.ts";
import { modelPreset } from "../../lib/model/config.ts";
import { createModel } from "../../lib/model/params.ts";
import { evalMarkdown, evaluateAgents } from "../../lib/train/evaluate.ts";

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
