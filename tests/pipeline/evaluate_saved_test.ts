import assert from "node:assert/strict";
import { buildData } from "../../lib/data/build.ts";
import { resolveConfig } from "../../lib/config/experiment.ts";
import { modelPreset } from "../../lib/model/config.ts";
import { createModel } from "../../lib/model/params.ts";
import { saveCheckpoint } from "../../lib/model/checkpoint.ts";
import { loadData } from "../../lib/data/build.ts";
import { evaluateSavedRun } from "../../lib/pipeline/evaluate_saved.ts";

Deno.test("evaluateSavedRun(): a saved run's SFT checkpoint on its validation sets, files under RUN/valid, test files untouched", async () => {
  const dataDir = await Deno.makeTempDir();
  const sets = { trainCount: 6, testCount: 1, testObjectives: [1], validCount: 1, sizes: { distractors: 0 } };
  await buildData(dataDir, 0, sets);
  const run = await Deno.makeTempDir();
  const config = resolveConfig("quick", {
    dataDir,
    data: { ...resolveConfig("quick").data, ...sets },
    rl: { ...resolveConfig("quick").rl, algorithms: [] },
    eval: { questions: 1, maxTurns: 3, maxTurnTokens: 40 },
  });
  await Deno.writeTextFile(`${run}/config.json`, JSON.stringify(config));
  await Deno.copyFile(`${dataDir}/tokenizer.json`, `${run}/tokenizer.json`);
  await Deno.writeTextFile(`${run}/metrics.jsonl`, "");
  const size = (await loadData(dataDir)).tokenizer.size;
  const model = createModel(modelPreset(config.model, size), { seed: 1 });
  await saveCheckpoint(`${run}/sft`, { models: { policy: model }, state: { step: 0, done: true } });
  model.dispose();
  const { rows, outDir } = await evaluateSavedRun(run, "valid");
  assert.equal(outDir, `${run}/valid`);
  // the scripted teacher and the SFT policy, each context policy, each validation set
  const teacher = rows.filter((r) => r.agent.startsWith("Teacher"));
  assert.deepEqual(teacher.map((r) => [r.objectives, r.em]).sort(), [[1, 1], [1, 1]]);
  const sft = rows.filter((r) => r.agent.startsWith("SFT"));
  assert.equal(sft.length, 2);
  // an untrained policy answers nothing right
  assert.ok(sft.every((r) => r.em === 0), JSON.stringify(sft.map((r) => r.em)));
  const written = JSON.parse(await Deno.readTextFile(`${run}/valid/eval.json`));
  assert.equal(written.rows.length, rows.length);
  await assert.rejects(Deno.stat(`${run}/eval.json`), Deno.errors.NotFound);
});
