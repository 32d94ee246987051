import assert from "node:assert/strict";
import { countParameters, modelPreset, validateModelConfig } from "../../lib/model/config.ts";

Deno.test("modelPreset() presets and the benchmark parameter count", () => {
  assert.equal(countParameters(modelPreset("bench", 512)), 918656);
  assert.deepEqual(
    [modelPreset("small", 400).dModel, modelPreset("small", 400).nLayers, modelPreset("small", 400).maxPositions],
    [128, 4, 2048],
  );
  assert.throws(() => modelPreset("huge" as "tiny", 10), /name must be one of tiny, small, base, bench/);
});

Deno.test("validateModelConfig() names the bad field", () => {
  const ok = modelPreset("tiny", 10);
  assert.throws(
    () => validateModelConfig({ ...ok, nLayers: 0 }),
    /nLayers must be a positive integer, current value is 0/,
  );
  assert.throws(() => validateModelConfig({ ...ok, dModel: 30, nHeads: 2 }), /even head size/);
  assert.throws(() => validateModelConfig({ ...ok, normEps: 0 }), /normEps > 0/);
});
