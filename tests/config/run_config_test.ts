import assert from "node:assert/strict";
import { asSaved, readRunConfig, RETIRED_VALUES, withoutRetired } from "../../lib/config/run_config.ts";
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

Deno.test("readRunConfig(): a run saved with data.markers false (before it was retired) reads as today's preset; true is refused", async () => {
  const dir = await Deno.makeTempDir();
  for (const preset of ["quick", "default"] as const) {
    const saved = { ...PRESETS[preset], data: { ...PRESETS[preset].data, markers: false } };
    await Deno.writeTextFile(`${dir}/config.json`, JSON.stringify(saved, null, 2));
    assert.deepEqual(await readRunConfig(dir), PRESETS[preset]);
  }
  // the other retired fields at the value the code kept read alike; at another value, each is refused as unknown
  const old = { ...PRESETS.default, sft: { ...PRESETS.default.sft, drillKinds: ["extract"], carryShare: 0 } };
  await Deno.writeTextFile(`${dir}/config.json`, JSON.stringify(old));
  assert.deepEqual(await readRunConfig(dir), PRESETS.default);
  for (const [section, field, value] of [["data", "markers", true], ["sft", "drillKinds", ["pop"]]] as const) {
    const bad = { ...PRESETS.quick, [section]: { ...PRESETS.quick[section], [field]: value } };
    await Deno.writeTextFile(`${dir}/config.json`, JSON.stringify(bad));
    await assert.rejects(
      readRunConfig(dir),
      (e: Error) => e instanceof DataError && new RegExp(`unknown field ${section}\\.${field}$`).test(e.message),
    );
  }
  await Deno.remove(dir, { recursive: true });
});

Deno.test("withoutRetired(): every retired field at its kept value, and no other, leaves a copy", () => {
  const saved = {
    data: Object.fromEntries(
      Object.entries(RETIRED_VALUES).filter(([p]) => p.startsWith("data.")).map(([p, v]) => [p.slice(5), v]),
    ),
    sft: {
      ...Object.fromEntries(
        Object.entries(RETIRED_VALUES).filter(([p]) => p.startsWith("sft.")).map(([p, v]) => [p.slice(4), v]),
      ),
      lr: 1,
    },
  };
  assert.ok(Object.keys(saved.data).includes("markers"));
  assert.deepEqual(withoutRetired(saved), { data: {}, sft: { lr: 1 } });
  assert.equal(saved.data.markers, false, "the saved config is left as it was");
  assert.deepEqual(withoutRetired({ data: { markers: true } }), { data: { markers: true } });
  assert.deepEqual(withoutRetired({ data: { markers: false } }, (p) => p === "data.markers"), {
    data: { markers: false },
  });
  for (const x of [undefined, null, 3, "x"]) assert.equal(withoutRetired(x), x);
});
