import assert from "node:assert/strict";
import { tf } from "../../lib/tf.ts";
import { setBackend } from "../../lib/backend.ts";
import { modelPreset } from "../../lib/model/config.ts";
import { createModel, trainableVariables } from "../../lib/model/params.ts";
import { createAdamW } from "../../lib/optim/adamw.ts";
import { collateLm, disposeLmBatch } from "../../lib/train/collate.ts";
import { splitByTokens } from "../../lib/train/micro_batches.ts";
import { sftStep } from "../../lib/train/sft.ts";
import { sequenceLogProbs } from "../../lib/model/score.ts";
import { createGradientWorkers } from "../../lib/train/gradient_workers.ts";
import { createRng } from "../../lib/random.ts";

await setBackend("wasm");

Deno.test("sftStep() with 2 gradient workers: the same losses, gradient norms and weights, to the bit, as on this thread", async () => {
  const rng = createRng(3);
  const sequences = Array.from({ length: 12 }, () => {
    const tokens = Array.from({ length: 6 + rng.int(30) }, () => 1 + rng.int(40));
    return { tokens, lossMask: tokens.map((_, i) => (i > 2 ? 1 : 0)) };
  });
  const run = async (workers?: ReturnType<typeof createGradientWorkers>) => {
    const model = createModel(modelPreset("tiny", 48), { seed: 5 });
    const opt = createAdamW(trainableVariables(model), { lr: 1e-2 });
    const log: number[] = [];
    const live: number[][] = [];
    for (let step = 0; step < 4; step++) {
      // three micro-batches a step (shortest first, as trainSft splits them)
      const micro = splitByTokens(sequences.slice(step * 3, step * 3 + 9), 48).map((g) => collateLm(g, 0));
      assert.ok(micro.length >= 2, `${micro.length} micro-batches`);
      const r = await sftStep(model, opt, micro, { workers });
      log.push(r.loss, r.gradNorm);
      if (workers !== undefined) live.push(workers.liveBytes());
      micro.forEach(disposeLmBatch);
    }
    const weights = trainableVariables(model).map((v) => Array.from(v.dataSync()));
    opt.dispose();
    model.dispose();
    return { log, weights, live };
  };
  const before = tf.memory().numTensors;
  const alone = await run();
  const workers = createGradientWorkers(2);
  try {
    const parallel = await run(workers);
    assert.deepEqual(parallel.log, alone.log);
    assert.deepEqual(parallel.weights, alone.weights);
    assert.ok(alone.log[0]! > alone.log.at(-2)!, "the steps learn");
    // each worker holds its model's weights and nothing more, whatever the step (the weights posted with each job
    // once stayed alive: 3.6 MB a step at the default preset, until the wasm heap ran out)
    assert.ok(parallel.live[0]!.every((b) => b > 0), `${parallel.live[0]}`);
    assert.deepEqual(parallel.live, parallel.live.map(() => parallel.live[0]), "live bytes per step");
  } finally {
    workers.close();
  }
  assert.equal(tf.memory().numTensors, before, "no tensor left behind");
  const model = createModel(modelPreset("tiny", 8), { seed: 0 });
  await assert.rejects(workers.pieceGradients(model, [], 1), /the gradient workers are closed/);
  model.dispose();
  assert.throws(() => createGradientWorkers(0), /size must be an integer ≥ 1, current value is 0/);
});

Deno.test("pieceLogProbs() on 2 workers: each piece's log-probs to the bit as on this thread, in piece order, the weights of each call", async () => {
  const rng = createRng(8);
  const pieces = [3, 1, 4, 2, 5].map((rows, p) => {
    const L = 4 + 3 * p; // every piece its own shape
    const row = () => Array.from({ length: L }, () => 1 + rng.int(40));
    return {
      tokens: tf.tensor2d(Array.from({ length: rows }, row), [rows, L], "int32"),
      targets: tf.tensor2d(Array.from({ length: rows }, row), [rows, L], "int32"),
    };
  });
  const models = [1, 2].map((seed) => createModel(modelPreset("tiny", 48), { seed }));
  const workers = createGradientWorkers(2);
  const before = tf.memory().numTensors;
  try {
    for (const temperature of [1, 0.7]) {
      for (const model of [...models, models[0]!]) { // the weights go with each call: back to the first model too
        const here = pieces.map((p) => sequenceLogProbs(model, p.tokens, p.targets, temperature));
        const there = await workers.pieceLogProbs(model, pieces, temperature);
        assert.deepEqual(there.map((t) => t.shape), here.map((t) => t.shape));
        assert.deepEqual(there.map((t) => Array.from(t.dataSync())), here.map((t) => Array.from(t.dataSync())));
        assert.ok(here.every((t) => t.dataSync().every((v) => v < 0)));
        tf.dispose([...here, ...there]);
      }
    }
    // the two models and the temperatures score differently (the comparison above could tell them apart)
    const a = await workers.pieceLogProbs(models[0]!, pieces.slice(0, 1));
    const b = await workers.pieceLogProbs(models[1]!, pieces.slice(0, 1));
    const c = await workers.pieceLogProbs(models[0]!, pieces.slice(0, 1), 0.7);
    assert.notDeepEqual(a[0]!.dataSync(), b[0]!.dataSync());
    assert.notDeepEqual(a[0]!.dataSync(), c[0]!.dataSync());
    tf.dispose([...a, ...b, ...c]);
    assert.deepEqual(await workers.pieceLogProbs(models[0]!, []), []);
    assert.equal(tf.memory().numTensors, before, "no tensor left behind");
    assert.ok(workers.liveBytes().every((bytes) => bytes > 0));
  } finally {
    workers.close();
    models.forEach((m) => m.dispose());
    tf.dispose(pieces.flatMap((p) => [p.tokens, p.targets]));
  }
  await assert.rejects(workers.pieceLogProbs(models[0]!, []), /Cannot score: the gradient workers are closed/);
});

Deno.test("trainSft() with gradient workers logs the same steps as without (two micro-batches a step)", async () => {
  const { trainSft } = await import("../../lib/train/sft_trainer.ts");
  const { resolveConfig } = await import("../../lib/config/experiment.ts");
  const rng = createRng(9);
  const sequences = Array.from({ length: 40 }, () => {
    const tokens = Array.from({ length: 10 + rng.int(20) }, () => 1 + rng.int(40));
    return { tokens, lossMask: tokens.map(() => 1) };
  });
  const config = { ...resolveConfig("quick", {}).sft, steps: 3, batchSize: 6, warmupSteps: 1 };
  const run = async (workers?: ReturnType<typeof createGradientWorkers>) => {
    const model = createModel(modelPreset("tiny", 48), { seed: 2 });
    const optimizer = createAdamW(trainableVariables(model), { lr: 1e-2 });
    const rows = await trainSft({
      model,
      optimizer,
      sequences,
      config,
      seed: 4,
      padId: 0,
      maxTokensPerMicroBatch: 64,
      workers,
    });
    optimizer.dispose();
    model.dispose();
    return rows.map((r) => [r.loss, r.gradNorm, r.tokens]);
  };
  const workers = createGradientWorkers(2);
  try {
    assert.deepEqual(await run(workers), await run());
  } finally {
    workers.close();
  }
});

Deno.test("loadModel(), generate(), scoreBatch(): a loaded model's batches on 2 workers, to the bit as on this thread", async () => {
  const { generate } = await import("../../lib/model/generate.ts");
  const { scoreContinuations } = await import("../../lib/model/score.ts");
  const rng = createRng(11);
  const prompts = [5, 9, 2, 7, 4, 6].map((n) => Array.from({ length: n }, () => 1 + rng.int(40)));
  const models = [1, 2].map((seed) => createModel(modelPreset("tiny", 48), { seed }));
  const workers = createGradientWorkers(2);
  const before = tf.memory().numTensors;
  try {
    for (const model of [...models, models[0]!]) { // a later load of the slot replaces its weights
      await workers.loadModel("policy", model);
      // three batches at once, each with its own seed: the next free worker takes each
      const batches = [prompts.slice(0, 2), prompts.slice(2, 5), prompts.slice(5)];
      const options = (b: number) => ({ maxNewTokens: 6, padId: 0, seed: 7 + b, stopIds: [3] });
      const there = await Promise.all(batches.map((p, b) => workers.generate("policy", p, options(b))));
      const here: Awaited<ReturnType<typeof generate>>[] = [];
      for (const [b, p] of batches.entries()) here.push(await generate(model, p, options(b)));
      assert.deepEqual(there, here);
      // scoreContinuations with the workers' scorer: its batches there, the same numbers
      const pairs = prompts.map((p, i) => ({ context: p, continuation: here.flatMap((r) => r.tokens)[i]! }));
      const scorer = (batch: Parameters<typeof workers.scoreBatch>[1], t: number) =>
        workers.scoreBatch("policy", batch, t);
      for (const temperature of [1, 0.7]) {
        const options = { padId: 0, batchSize: 2, temperature };
        assert.deepEqual(
          await scoreContinuations(model, pairs, { ...options, scorer }),
          await scoreContinuations(model, pairs, options),
        );
      }
    }
    const live = workers.liveBytes();
    await workers.loadModel("policy", models[1]!);
    await workers.generate("policy", prompts, { maxNewTokens: 4, padId: 0 });
    assert.deepEqual(workers.liveBytes(), live, "the workers' heaps stay flat from load to load");
    await assert.rejects(
      workers.generate("nope", prompts, { maxNewTokens: 2, padId: 0 }),
      /No model loaded under "nope"/,
    );
    assert.equal(tf.memory().numTensors, before, "no tensor left behind here");
  } finally {
    workers.close();
    models.forEach((m) => m.dispose());
  }
  await assert.rejects(workers.loadModel("policy", models[0]!), /Cannot load a model: the gradient workers are closed/);
  await assert.rejects(workers.generate("policy", [], { maxNewTokens: 1, padId: 0 }), /Cannot generate: .*closed/);
});
