import assert from "node:assert/strict";
import { tf } from "../../lib/tf.ts";
import { createModel } from "../../lib/model/params.ts";
import { forwardLogits } from "../../lib/model/transformer.ts";
import { countParameters, forwardMatmulFlops, modelPreset, validateModelConfig } from "../../lib/model/config.ts";

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

Deno.test("forwardMatmulFlops() equals the matrix products a forward pass runs (profiled kernel by kernel)", async () => {
  const config = modelPreset("tiny", 40);
  const model = createModel(config, { seed: 0 });
  const [B, T] = [3, 7];
  const tokens = tf.tensor2d(Array.from({ length: B }, (_, b) => Array.from({ length: T }, (_, t) => (b + t) % 40)), [
    B,
    T,
  ], "int32");
  const info = await tf.profile(() => forwardLogits(model, tokens));
  // a matMul of [..., M, K] · [..., K, N] is 2·M·K·N FLOPs per batch entry
  let flops = 0;
  for (const k of info.kernels) {
    if (!/MatMul/.test(k.name)) continue;
    const [a, b] = k.inputShapes as number[][];
    const out = k.outputShapes[0] as number[];
    const K = a!.length === b!.length && a!.at(-1) === b!.at(-2) ? a!.at(-1)! : a!.at(-2)!; // transposeA flips it
    flops += 2 * out.reduce((p, q) => p * q, 1) * K;
  }
  tf.dispose([tokens, info.result as tf.Tensor]);
  model.dispose();
  assert.equal(flops, forwardMatmulFlops(config, B, T));
});
