import assert from "node:assert/strict";
import { tf } from "../../lib/tf.ts";
import { modelPreset } from "../../lib/model/config.ts";
import { createModel, trainableVariables } from "../../lib/model/params.ts";
import { createAdamW } from "../../lib/train/adamw.ts";
import { collateLm, disposeLmBatch } from "../../lib/train/collate.ts";
import { sftStep } from "../../lib/train/sft.ts";
import { createRng } from "../../lib/random.ts";

Deno.test("the tiny model learns a synthetic language within seconds, with a flat tensor count", () => {
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
    losses.push(sftStep(m, opt, batch).loss);
    if (step === 2) count = tf.memory().numTensors;
    if (step > 2) assert.equal(tf.memory().numTensors, count, `tensor count grew at step ${step}`);
  }
  assert.ok(losses[0]! > Math.log(V) - 0.5, `start near log V: ${losses[0]}`);
  assert.ok(losses.at(-1)! < 0.3 * losses[0]!, `loss ${losses[0]} → ${losses.at(-1)}`);
  disposeLmBatch(batch);
  opt.dispose();
  m.dispose();
});

Deno.test("sftStep() skips a NaN step and leaves the weights untouched", () => {
  const m = createModel(modelPreset("tiny", 10), { seed: 8 });
  const opt = createAdamW(trainableVariables(m), { lr: 1e-2 });
  const w = m.weights.get("model.layers.0.mlp.up_proj.weight")!;
  w.assign(tf.fill(w.shape, NaN));
  const before = m.weights.get("model.norm.weight")!.dataSync().slice();
  const batch = collateLm([{ tokens: [1, 2, 3], lossMask: [0, 1, 1] }], 0);
  const r = sftStep(m, opt, batch);
  assert.equal(r.skipped, true);
  assert.deepEqual(m.weights.get("model.norm.weight")!.dataSync(), before);
  assert.equal(opt.stepCount, 0);
  disposeLmBatch(batch);
  opt.dispose();
  m.dispose();
});
