import assert from "node:assert/strict";
import { buildData } from "../../lib/data/build.ts";
import { resolveConfig } from "../../lib/config/experiment.ts";
import { modelPreset } from "../../lib/model/config.ts";
import { createModel } from "../../lib/model/params.ts";
import { saveCheckpoint } from "../../lib/model/checkpoint.ts";
import { tokenizerToJson } from "../../lib/text/tokenizer.ts";
import { buildTokenizer } from "../../lib/text/tokenizer.ts";
import { openRun, POLICY_FLAG } from "../../lib/pipeline/open_run.ts";

const dataDir = await Deno.makeTempDir();
await buildData(dataDir, 0, { trainCount: 4, testCount: 1, testObjectives: [1], sizes: { distractors: 0 } });
const config = resolveConfig("quick", { dataDir });

Deno.test("openRun(): the run's data and architecture; a checkpoint loads frozen only with that architecture", async () => {
  const run = await Deno.makeTempDir();
  await Deno.copyFile(`${dataDir}/tokenizer.json`, `${run}/tokenizer.json`);
  const opened = await openRun(run, config);
  assert.deepEqual(opened.expect, modelPreset(config.model, opened.data.tokenizer.size));
  const model = createModel(opened.expect, { seed: 3 });
  await saveCheckpoint(`${run}/sft`, { models: { policy: model }, state: { step: 1 } });
  const other = createModel(modelPreset(config.model, opened.data.tokenizer.size + 1), { seed: 3 });
  await saveCheckpoint(`${run}/grpo`, { models: { policy: other }, state: { step: 1 } });
  const loaded = await opened.load("sft");
  const name = "model.norm.weight";
  assert.deepEqual(loaded.weights.get(name)!.dataSync(), model.weights.get(name)!.dataSync());
  await assert.rejects(() => opened.load("grpo"), /vocab/i);
  for (const m of [model, other, loaded]) m.dispose();
});

Deno.test("openRun(): data whose tokenizer differs from the run's is refused before it is loaded", async () => {
  const run = await Deno.makeTempDir();
  await Deno.writeTextFile(`${run}/tokenizer.json`, tokenizerToJson(buildTokenizer(["other words"])));
  await assert.rejects(() => openRun(run, config), /Cannot evaluate .*differs from the run's tokenizer\.json/);
});

Deno.test("POLICY_FLAG: the SFT policy and every RL algorithm's, the SFT policy by default", () => {
  assert.deepEqual(POLICY_FLAG.choices, ["sft", "ppo", "grpo", "mempo"]);
  assert.equal(POLICY_FLAG.default, "sft");
});
