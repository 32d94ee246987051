// One workload of bench/data_parallel.ts timed on the current backend (set by the caller): the bench model's train
// step (next-token cross-entropy, backward, AdamW) or scoring (fused projections, as the package scores) on `rows`,
// `reps` timed repetitions after one warm-up; for train also the copy of every trainable variable out of the backend
// (what a gradient all-reduce would post).
import { tf } from "../lib/tf.ts";
import { modelPreset } from "../lib/model/config.ts";
import { createModel, trainableVariables } from "../lib/model/params.ts";
import { createAdamW } from "../lib/optim/adamw.ts";
import { collateLm, disposeLmBatch } from "../lib/train/collate.ts";
import { sftStep } from "../lib/train/sft.ts";
import { sequenceLogProbs } from "../lib/model/score.ts";
import { disposeFusedWeights, fuseWeights } from "../lib/model/transformer.ts";

/** Milliseconds per repetition, and the variables' copy in ms (train; 0 for score). */
export async function timedWorkload(
  workload: "train" | "score",
  rows: number[][],
  reps: number,
  vocab: number,
): Promise<{ times: number[]; exchangeMs: number }> {
  const model = createModel(modelPreset("bench", vocab), { seed: 0 });
  const times: number[] = [];
  let exchangeMs = 0;
  if (workload === "train") {
    const batch = collateLm(rows.map((t) => ({ tokens: t, lossMask: t.map(() => 1) })), 0);
    const opt = createAdamW(trainableVariables(model), { lr: 1e-3, weightDecay: 0.01 });
    for (let i = 0; i <= reps; i++) {
      const t0 = performance.now();
      await sftStep(model, opt, batch, { maxGradNorm: 1e9 });
      if (i > 0) times.push(performance.now() - t0);
    }
    const t0 = performance.now();
    const copies = trainableVariables(model).map((v) => new Float32Array(v.dataSync() as Float32Array));
    exchangeMs = performance.now() - t0;
    if (copies.length === 0) throw new Error("no trainable variables");
    disposeLmBatch(batch);
    opt.dispose();
  } else {
    const x = tf.tensor2d(rows.map((r) => r.slice(0, -1)), undefined, "int32");
    const y = tf.tensor2d(rows.map((r) => r.slice(1)), undefined, "int32");
    for (let i = 0; i <= reps; i++) {
      const t0 = performance.now();
      const fused = fuseWeights(model);
      const lp = sequenceLogProbs(model, x, y, 1, fused);
      await lp.data();
      lp.dispose();
      disposeFusedWeights(fused);
      if (i > 0) times.push(performance.now() - t0);
    }
    tf.dispose([x, y]);
  }
  model.dispose();
  return { times, exchangeMs };
}
