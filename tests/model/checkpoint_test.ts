import assert from "node:assert/strict";
import { tf } from "../../lib/tf.ts";
import { modelPreset } from "../../lib/model/config.ts";
import { createModel, trainableVariables } from "../../lib/model/params.ts";
import { forwardLogits } from "../../lib/model/transformer.ts";
import { loadCheckpoint, saveCheckpoint } from "../../lib/model/checkpoint.ts";
import { createAdamW } from "../../lib/optim/adamw.ts";
import { assertAllClose } from "../../lib/testing/all_close.ts";

Deno.test("saveCheckpoint() → loadCheckpoint() gives identical logits and optimizer state", async () => {
  const dir = await Deno.makeTempDir();
  const m = createModel(modelPreset("tiny", 30), { seed: 31 });
  const critic = createModel(modelPreset("tiny", 30), { seed: 32, kind: "critic" });
  const opt = createAdamW(trainableVariables(m), { lr: 0.01 });
  const grads = tf.tidy(() =>
    tf.variableGrads(
      () => tf.sum(forwardLogits(m, tf.tensor2d([[1, 2]], undefined, "int32"))) as tf.Scalar,
      trainableVariables(m),
    ).grads
  );
  opt.apply(grads);
  tf.dispose(grads);
  await saveCheckpoint(dir, { models: { policy: m, critic }, optimizers: { policy: opt }, state: { step: 3 } });
  const loaded = await loadCheckpoint(dir, {
    optimizers: { policy: (model) => createAdamW(trainableVariables(model), { lr: 0.01 }) },
  });
  const tokens = tf.tensor2d([[3, 1, 4, 1, 5]], undefined, "int32");
  assertAllClose(forwardLogits(loaded.models.policy!, tokens), forwardLogits(m, tokens).arraySync() as number[][][], {
    rtol: 0,
    atol: 0,
  });
  assert.equal(loaded.models.critic!.kind, "critic");
  assert.equal(loaded.optimizers.policy!.stepCount, 1);
  const name = "model.layers.0.mlp.up_proj.weight";
  const mOld = opt.state().m.get(m.weights.get(name)!.name)!;
  const mNew = loaded.optimizers.policy!.state().m.get(loaded.models.policy!.weights.get(name)!.name)!;
  assertAllClose(mNew, mOld.arraySync() as number[][], { rtol: 0, atol: 0 });
  assert.equal(loaded.state.step, 3);
  for (const x of [m, critic, loaded.models.policy!, loaded.models.critic!]) x.dispose();
  opt.dispose();
  loaded.optimizers.policy!.dispose();
  tokens.dispose();
  await Deno.remove(dir, { recursive: true });
});

Deno.test("loadCheckpoint() refuses another architecture and corrupted files; leaves no temp files", async () => {
  const dir = await Deno.makeTempDir();
  const m = createModel(modelPreset("tiny", 30), { seed: 33 });
  await saveCheckpoint(dir, { models: { policy: m } });
  assert.deepEqual([...Deno.readDirSync(dir)].map((e) => e.name).sort(), ["config.json", "policy.safetensors"]);
  await assert.rejects(
    loadCheckpoint(dir, { expect: { dModel: 64 } }),
    /has dModel = 32, expected 64 \(another architecture\)/,
  );
  const before = tf.memory().numTensors;
  const bytes = await Deno.readFile(`${dir}/policy.safetensors`);
  bytes[bytes.length - 1] = bytes[bytes.length - 1]! ^ 0xff;
  await Deno.writeFile(`${dir}/policy.safetensors`, bytes);
  await assert.rejects(loadCheckpoint(dir), /policy.safetensors is corrupted/);
  await Deno.writeFile(`${dir}/policy.safetensors`, bytes.slice(0, 100));
  await assert.rejects(loadCheckpoint(dir), /found 100 bytes/);
  assert.equal(tf.memory().numTensors, before, "a failed load frees what it created");
  await Deno.writeTextFile(`${dir}/config.json`, "{ nope");
  await assert.rejects(loadCheckpoint(dir), /config.json is not valid JSON/);
  m.dispose();
  await Deno.remove(dir, { recursive: true });
});
