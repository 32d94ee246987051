import assert from "node:assert/strict";
import { asSaved, readRunConfig } from "../../lib/config/run_config.ts";
import { PRESETS, resolveConfig, validateConfig } from "../../lib/config/experiment.ts";
import { DataError } from "../../lib/errors.ts";

Deno.test("readRunConfig(): a run's config back as saved; every damage a DataError naming the file", async () => {
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(`${dir}/config.json`, JSON.stringify(PRESETS.quick, null, 2));
  assert.deepEqual(await readRunConfig(dir), PRESETS.quick);
  const cases: [string, RegExp][] = [
    ['{"preset": "quick", "rl": {"lr": 1', /config\.json is not valid JSON \(/],
    ["[1, 2]", /config\.json: Invalid config: the config must be an object of fields/],
    [
      '{"preset": "huge"}',
      /config\.json: Invalid config: preset must be one of default, quick, current value is "huge"/,
    ],
    [
      '{"preset": "quick", "eval": {"questions": 1e999}}',
      /eval\.questions must be an integer ≥ 1, current value is Infinity/,
    ],
    [
      '{"preset": "quick", "data": {"sizes": {"cats": 1}}}',
      /config\.json: Invalid config: unknown field data\.sizes\.cats/,
    ],
  ];
  for (const [text, message] of cases) {
    await Deno.writeTextFile(`${dir}/config.json`, text);
    await assert.rejects(readRunConfig(dir), (e: Error) => e instanceof DataError && message.test(e.message));
  }
  await assert.rejects(readRunConfig(`${dir}/missing`), /Cannot read .*missing\/config.json: no such file/);
});

Deno.test("readRunConfig(), asSaved(): a field a preset gained later stays unset in a run saved before it", async () => {
  const dir = await Deno.makeTempDir();
  const { pretrainLoss: _, ...sft } = PRESETS.default.sft;
  const old = { ...PRESETS.default, sft };
  await Deno.writeTextFile(`${dir}/config.json`, JSON.stringify(old));
  const read = await readRunConfig(dir);
  assert.equal(read.sft.pretrainLoss, undefined);
  assert.deepEqual(read, validateConfig(old));
  // a run saved with it keeps it; a partial, hand-written section still takes the preset's
  await Deno.writeTextFile(`${dir}/config.json`, JSON.stringify(PRESETS.default));
  assert.equal((await readRunConfig(dir)).sft.pretrainLoss, 1);
  await Deno.writeTextFile(`${dir}/config.json`, JSON.stringify({ preset: "default", sft: { lr: 1e-3 } }));
  const partial = await readRunConfig(dir);
  assert.deepEqual([partial.sft.lr, partial.sft.pretrainLoss], [1e-3, 1]);
  // a --config file's field over a saved run (train --from): set there, kept
  const merged = { ...old, sft: { ...sft, pretrainLoss: 2 } };
  assert.equal(asSaved(resolveConfig("default", merged), merged).sft.pretrainLoss, 2);
  await Deno.remove(dir, { recursive: true });
});
