import assert from "node:assert/strict";
import { tf } from "../../lib/tf.ts";
import { countParameters, modelPreset } from "../../lib/model/config.ts";
import { assignWeights, copyModel, createModel, trainableVariables, weightShapes } from "../../lib/model/params.ts";

Deno.test("createModel(): seeded, uniquely named, counted, disposable", () => {
  const before = tf.memory().numTensors;
  const cfg = modelPreset("tiny", 50);
  const a = createModel(cfg, { seed: 1 });
  const b = createModel(cfg, { seed: 1 });
  const c = createModel(cfg, { seed: 2 });
  const w = "model.layers.0.self_attn.q_proj.weight";
  assert.deepEqual(a.weights.get(w)!.dataSync(), b.weights.get(w)!.dataSync());
  assert.notDeepEqual(a.weights.get(w)!.dataSync(), c.weights.get(w)!.dataSync());
  const names = new Set([...a.weights.values(), ...b.weights.values()].map((v) => v.name));
  assert.equal(names.size, 2 * a.weights.size);
  const total = trainableVariables(a).reduce((s, v) => s + v.size, 0);
  assert.equal(total, countParameters(cfg));
  // init scale: N(0, 0.02²)
  const q = Array.from(a.weights.get(w)!.dataSync());
  const std = Math.sqrt(q.reduce((s, x) => s + x * x, 0) / q.length);
  assert.ok(std > 0.015 && std < 0.025, `std ${std}`);
  for (const m of [a, b, c]) m.dispose();
  assert.equal(tf.memory().numTensors, before);
});

Deno.test("copyModel() is frozen and independent; assignWeights() syncs; critics have a value head", () => {
  const cfg = modelPreset("tiny", 50);
  const p = createModel(cfg, { seed: 3 });
  const ref = copyModel(p);
  assert.equal(ref.trainable, false);
  assert.ok(trainableVariables(ref).every((v) => !v.trainable));
  const w = "model.norm.weight";
  p.weights.get(w)!.assign(tf.fill([32], 2));
  assert.equal(ref.weights.get(w)!.dataSync()[0], 1);
  assignWeights(ref, p);
  assert.equal(ref.weights.get(w)!.dataSync()[0], 2);
  const critic = createModel(cfg, { kind: "critic" });
  assert.deepEqual(weightShapes(cfg, "critic").slice(-2).map(([n]) => n), ["value_head.weight", "value_head.bias"]);
  assert.throws(() => assignWeights(critic, p), /value_head.weight is missing/);
  for (const m of [p, ref, critic]) m.dispose();
});
