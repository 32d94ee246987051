import assert from "node:assert/strict";
import { readRunConfig } from "../../lib/config/run_config.ts";
import { PRESETS } from "../../lib/config/experiment.ts";
import { DataError } from "../../lib/errors.ts";

Deno.test("readRunConfig(): a run's config back as saved; every damage a DataError naming the file", async () => {
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(`${dir}/config.json`, JSON.stringify(PRESETS.quick, null, 2));
  assert.deepEqual(await readRunConfig(dir), PRESETS.quick);
  const cases: [string, RegExp][] = [
    ['{"preset": "quick", "rl": {"lr": 1', /config\.json: it is not valid JSON/],
    ["[1, 2]", /config\.json: Invalid config: the config must be an object of fields/],
    [
      '{"preset": "huge"}',
      /config\.json: Invalid config: preset must be one of default, quick, paper, short, current value is "huge"/,
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
