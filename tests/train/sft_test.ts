import assert from "node:assert/strict";
import { tf } from "../../lib/tf.ts";
import { modelPreset } from "../../lib/model/config.ts";
import { createModel, trainableVariables } from "../../lib/model/params.ts";
import { createAdamW } from "../../lib/optim/adamw.ts";
import { collateLm, disposeLmBatch } from "../../lib/train/collate.ts";
import { sftStep } from "../../lib/train/sft.ts";
import { createRng } from "../../lib/random.ts";
import { assertAllClose } from "../../lib/testing/all_close.ts";
import { onBackends, parityBackends } from "../_helpers.ts";

Deno.test("the tiny model learns a synthetic language within seconds, with a flat tensor count", async () => {
  // a deterministic grammar: after token a comes (3a + 1) mod 20 (+ noise-free), 16 random starts
  const rng = createRng(5);
  const V = 24;
  const seqs = Array.from({ length: 16 }, () => {
    const s = [2 + rng.int(20)];
    while (s.length < 24) s.push(2 + ((3 * (s.at(-1)! - 2) + 1) % 20));
    return { tokens: s, lossMask: s.map((_, i) => (i === 0 ? 0 : 1)) };
  });
  const m = createModel(modelPreset("tiny", V), { seed: 7 });
  const opt = createAdamW(trainableVariables(m), { lr: 3e-3 });
  const batch = collateLm(seqs, 0);
  const losses: number[] = [];
  let count = 0;
  for (let step = 0; step < 60; step++) {
    losses.push((await sftStep(m, opt, batch)).loss);
    if (step === 2) count = tf.memory().numTensors;
    if (step > 2) assert.equal(tf.memory().numTensors, count, `tensor count grew at step ${step}`);
  }
  assert.ok(losses[0]! > Math.log(V) - 0.5, `start near log V: ${losses[0]}`);
  assert.ok(losses.at(-1)! < 0.3 * losses[0]!, `loss ${losses[0]} → ${losses.at(-1)}`);
  disposeLmBatch(batch);
  opt.dispose();
  m.dispose();
});

Deno.test("sftStep() skips a NaN step and leaves the weights untouched", async () => {
  const m = createModel(modelPreset("tiny", 10), { seed: 8 });
  const opt = createAdamW(trainableVariables(m), { lr: 1e-2 });
  const w = m.weights.get("model.layers.0.mlp.up_proj.weight")!;
  w.assign(tf.fill(w.shape, NaN));
  const before = m.weights.get("model.norm.weight")!.dataSync().slice();
  const batch = collateLm([{ tokens: [1, 2, 3], lossMask: [0, 1, 1] }], 0);
  const r = await sftStep(m, opt, batch);
  assert.equal(r.skipped, true);
  assert.deepEqual(m.weights.get("model.norm.weight")!.dataSync(), before);
  assert.equal(opt.stepCount, 0);
  disposeLmBatch(batch);
  opt.dispose();
  m.dispose();
});

Deno.test("sftStep(): three clipped steps of a tiny model agree across backends (loss, grad norm, weights)", async () => {
  const results = await onBackends(await parityBackends(), async () => {
    const m = createModel(modelPreset("tiny", 24), { seed: 11 });
    const opt = createAdamW(trainableVariables(m), { lr: 1e-2 });
    const batch = collateLm([
      { tokens: [1, 5, 9, 13, 2, 17, 21], lossMask: [0, 0, 1, 1, 1, 1, 1] },
      { tokens: [3, 7, 11, 4], lossMask: [0, 1, 1, 1] },
    ], 0);
    const steps = [];
    for (let i = 0; i < 3; i++) steps.push(await sftStep(m, opt, batch, { maxGradNorm: 0.5 }));
    disposeLmBatch(batch);
    const out = {
      loss: tf.tensor1d(steps.map((r) => r.loss)),
      gradNorm: tf.tensor1d(steps.map((r) => r.gradNorm)),
      weight: m.weights.get("model.layers.0.self_attn.q_proj.weight")!.clone(),
    };
    opt.dispose();
    m.dispose();
    return out;
  });
  const wasm = results.get("wasm")!;
  assert.ok((wasm.gradNorm as number[]).every((g) => g > 0.5), "the steps are clipped");
  for (const [name, r] of results) {
    assertAllClose(r.loss as number[], wasm.loss as number[], { rtol: 1e-4, msg: `${name} loss` });
    assertAllClose(r.gradNorm as number[], wasm.gradNorm as number[], { rtol: 1e-3, msg: `${name} grad norm` });
    assertAllClose(r.weight as number[][], wasm.weight as number[][], {
      rtol: 1e-3,
      atol: 1e-4,
      msg: `${name} weights`,
    });
  }
});
