import { tf } from "../lib/tf.ts";
import { modelPreset } from "../lib/model/config.ts";
import { createModel, trainableVariables } from "../lib/model/params.ts";
import { forwardHidden, outputLogits } from "../lib/model/transformer.ts";
import { tokenLogProbs } from "../lib/tensor/log_probs.ts";
const m = createModel(modelPreset("bench", 512), { seed: 0 });
const B = 8, T = 256;
const ids = tf.tensor2d(Array.from({ length: B }, (_, b) => Array.from({ length: T }, (_, t) => (b * 31 + t * 7) % 512)), undefined, "int32");
const tg = tf.tensor2d(Array.from({ length: B }, (_, b) => Array.from({ length: T }, (_, t) => (b * 31 + t * 7 + 7) % 512)), undefined, "int32");
const opt = tf.train.adam(1e-3);
const step = () => tf.tidy(() => {
  const { value, grads } = tf.variableGrads(() => tf.neg(tf.mean(tokenLogProbs(outputLogits(m, forwardHidden(m, ids).hidden), tg))) as tf.Scalar, trainableVariables(m));
  opt.applyGradients(grads);
  return value;
});
step().dispose();
for (let r = 0; r < 3; r++) { const t0 = performance.now(); const v = step(); v.dataSync(); v.dispose(); const dt = (performance.now() - t0) / 1000; console.log("train", dt.toFixed(3), "s", (B * T / dt).toFixed(0), "tok/s"); }
const sids = tf.tensor2d(Array.from({ length: 32 }, (_, b) => Array.from({ length: T }, (_, t) => (b * 31 + t * 7) % 512)), undefined, "int32");
const sc = () => tf.tidy(() => tokenLogProbs(outputLogits(m, forwardHidden(m, sids).hidden), sids));
sc().dispose();
for (let r = 0; r < 3; r++) { const t0 = performance.now(); const v = sc(); v.dataSync(); v.dispose(); const dt = (performance.now() - t0) / 1000; console.log("score", dt.toFixed(3), "s", (32 * T / dt).toFixed(0), "tok/s"); }
// profile one train step
const prof = await tf.profile(() => { step().dispose(); });
const agg = new Map<string, number>();
for (const k of prof.kernels) agg.set(k.name, (agg.get(k.name) ?? 0) + (k.kernelTimeMs as number));
console.log([...agg.entries()].sort((a, b) => b[1] - a[1]).slice(0, 15).map(([k, v]) => `${k} ${v.toFixed(0)}ms`).join("\n"));
const agg2 = new Map<string, [number, number]>();
for (const k of prof.kernels) if (k.name === "BatchMatMul") { const key = JSON.stringify(k.inputShapes); const e = agg2.get(key) ?? [0, 0]; agg2.set(key, [e[0] + (k.kernelTimeMs as number), e[1] + 1]); }
console.log([...agg2.entries()].sort((a, b) => b[1][0] - a[1][0]).slice(0, 20).map(([k, v]) => `${k} ${v[0].toFixed(0)}ms x${v[1]}`).join("\n"));
