/// <reference lib="deno.worker" />
// A worker of bench/data_parallel.ts: the bench model on the single-threaded wasm build, timing the train step
// (or scoring) on the rows it is sent, and one gradient exchange's copy (the step's gradients as Float32Arrays, which
// data parallelism would post to the other side). Modules load on the first message (a worker's static imports of
// the backend keep its message loop from starting under Deno).
interface Job {
  workload: "train" | "score";
  rows: number[][];
  reps: number;
  vocab: number;
}

self.onmessage = async (e: MessageEvent<Job>) => {
  const { tf } = await import("../lib/tf.ts");
  const { setBackend } = await import("../lib/backend/backend.ts");
  const { modelPreset } = await import("../lib/model/config.ts");
  const { createModel, trainableVariables } = await import("../lib/model/params.ts");
  const { createAdamW } = await import("../lib/optim/adamw.ts");
  const { collateLm, disposeLmBatch } = await import("../lib/train/collate.ts");
  const { sftStep } = await import("../lib/train/sft.ts");
  const { sequenceLogProbs } = await import("../lib/model/score.ts");
  const { disposeFusedWeights, fuseWeights } = await import("../lib/model/transformer.ts");
  const { workload, rows, reps, vocab } = e.data;
  await setBackend("wasm", { threads: 1 });
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
    // what an all-reduce moves: every trainable variable read out and copied once
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
  self.postMessage({ times, exchangeMs });
};
