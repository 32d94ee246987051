import assert from "node:assert/strict";
import { tf } from "../../lib/tf.ts";
import { modelPreset } from "../../lib/model/config.ts";
import { copyModel, createModel, trainableVariables } from "../../lib/model/params.ts";
import { createAdamW } from "../../lib/optim/adamw.ts";
import { criticValues, policyUpdate } from "../../lib/train/policy_update.ts";
import { scoreContinuations } from "../../lib/model/score.ts";
import { assertAllClose } from "../../lib/testing/all_close.ts";
import { onBackends, parityBackends } from "../_helpers.ts";

const config = {
  clipLow: 0.2,
  clipHigh: 0.2,
  klCoef: 0.001,
  klEstimator: "low_var_kl" as const,
  ppoEpochs: 2,
  miniBatchSize: 2,
  maxGradNorm: 1,
  temperature: 1,
  vfCoef: 0.5,
  valueClip: 0.5,
};

Deno.test("policyUpdate(): positive advantages raise the log-prob of their tokens, negative lower it", async () => {
  const policy = createModel(modelPreset("tiny", 16), { seed: 3 });
  const reference = copyModel(policy);
  const optimizer = createAdamW(trainableVariables(policy), { lr: 3e-3, weightDecay: 0 });
  const pairs = [{ context: [1, 2, 3], continuation: [4, 5] }, { context: [1, 2, 3], continuation: [6, 7] }];
  const old = await scoreContinuations(policy, pairs, { padId: 0 });
  const seqs = pairs.map((p, i) => ({
    episode: i,
    turn: 0,
    tokens: [...p.context, ...p.continuation],
    lossMask: [0, 0, 0, 1, 1],
    extras: { advantages: [0, 0, 0, i === 0 ? 1 : -1, i === 0 ? 1 : -1], oldLogProbs: [0, 0, 0, ...old[i]!] },
  }));
  const stats = await policyUpdate(seqs, { policy, optimizer, reference }, config, { padId: 0, seed: 1 });
  assert.equal(stats.updates, 2);
  assert.equal(stats.skipped, 0);
  assert.ok(stats.entropy > 0);
  const after = await scoreContinuations(policy, pairs, { padId: 0 });
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  assert.ok(sum(after[0]!) > sum(old[0]!), "A > 0 raised");
  assert.ok(sum(after[1]!) < sum(old[1]!), "A < 0 lowered");
  const refAfter = await scoreContinuations(reference, pairs, { padId: 0 });
  assert.deepEqual(refAfter, old, "reference untouched");
  optimizer.dispose();
  policy.dispose();
  reference.dispose();
});

Deno.test("policyUpdate(): a NaN loss skips the update and leaves the weights untouched", async () => {
  const policy = createModel(modelPreset("tiny", 16), { seed: 4 });
  const reference = copyModel(policy);
  const optimizer = createAdamW(trainableVariables(policy), { lr: 1e-2 });
  const seq = {
    episode: 0,
    turn: 0,
    tokens: [1, 2, 3],
    lossMask: [0, 1, 1],
    extras: { advantages: [0, NaN, 1], oldLogProbs: [0, -1, -1] },
  };
  const before = policy.weights.get("model.norm.weight")!.dataSync().slice();
  const stats = await policyUpdate([seq], { policy, optimizer, reference }, { ...config, ppoEpochs: 1 }, {
    padId: 0,
    seed: 1,
  });
  assert.equal(stats.skipped, 1);
  assert.equal(stats.updates, 0);
  assert.deepEqual(policy.weights.get("model.norm.weight")!.dataSync(), before);
  optimizer.dispose();
  policy.dispose();
  reference.dispose();
});

Deno.test("criticValues() reads the value at the position that predicts each sampled token", async () => {
  const critic = createModel(modelPreset("tiny", 16), { kind: "critic", seed: 5 });
  critic.weights.get("value_head.bias")!.assign(tf.tensor1d([0.25]));
  const v = (await criticValues(critic, [[{ context: [1, 2], sampled: [3, 4, 5] }]], 0))[0]![0];
  assert.equal(v!.length, 3);
  const w = (await criticValues(critic, [[{ context: [1, 2, 3], sampled: [4, 5] }]], 0))[0]![0];
  assert.ok(Math.abs(w![0]! - v![1]!) < 1e-5, "same prefix, same value");
  critic.dispose();
});

Deno.test("policyUpdate(): two PPO epochs with KL and a critic agree across backends", async () => {
  const results = await onBackends(await parityBackends(), async () => {
    const policy = createModel(modelPreset("tiny", 16), { seed: 6 });
    const reference = copyModel(policy);
    const critic = createModel(modelPreset("tiny", 16), { kind: "critic", seed: 7 });
    const optimizer = createAdamW(trainableVariables(policy), { lr: 1e-2 });
    const criticOptimizer = createAdamW(trainableVariables(critic), { lr: 1e-2 });
    const pairs = [{ context: [1, 2, 3], continuation: [4, 5, 9] }, { context: [1, 2], continuation: [6, 7] }];
    const old = await scoreContinuations(policy, pairs, { padId: 0 });
    const seqs = pairs.map((p, i) => {
      const n = p.context.length;
      const k = p.continuation.length;
      return {
        episode: i,
        turn: 0,
        tokens: [...p.context, ...p.continuation],
        lossMask: [...Array(n).fill(0), ...Array(k).fill(1)],
        extras: {
          advantages: [...Array(n).fill(0), ...Array(k).fill(i === 0 ? 0.7 : -1.3)],
          oldLogProbs: [...Array(n).fill(0), ...old[i]!],
          returns: [...Array(n).fill(0), ...Array(k).fill(i === 0 ? 1 : 0)],
          oldValues: [...Array(n).fill(0), ...Array(k).fill(0.1)],
        },
      };
    });
    const stats = await policyUpdate(seqs, { policy, optimizer, reference, critic, criticOptimizer }, config, {
      padId: 0,
      seed: 2,
    });
    const after = await scoreContinuations(policy, pairs, { padId: 0 });
    const out = {
      stats: tf.tensor1d([stats.policyLoss, stats.approxKl, stats.refKl, stats.entropy, stats.valueLoss]),
      after: tf.tensor1d(after.flat()),
    };
    for (const d of [optimizer, criticOptimizer, policy, reference, critic]) d.dispose();
    return out;
  });
  const wasm = results.get("wasm")!;
  assert.ok((wasm.stats as number[])[2]! > 0, "the policy moved away from the reference");
  for (const [name, r] of results) {
    assertAllClose(r.stats as number[], wasm.stats as number[], { rtol: 1e-3, atol: 1e-5, msg: `${name} stats` });
    assertAllClose(r.after as number[], wasm.after as number[], { rtol: 1e-3, atol: 1e-4, msg: `${name} log-probs` });
  }
});

Deno.test("policyUpdate() with workers for the reference pass: the same stats and weights, to the bit", async () => {
  const { setBackend } = await import("../../lib/backend.ts");
  const { createGradientWorkers } = await import("../../lib/train/gradient_workers.ts");
  await setBackend("wasm");
  const pairs = [
    { context: [1, 2, 3], continuation: [4, 5, 9] },
    { context: [1, 2], continuation: [6, 7] },
    { context: [3, 1, 2, 8], continuation: [10, 11, 12, 2] },
    { context: [5], continuation: [13, 14] },
  ];
  const run = async (workers?: ReturnType<typeof createGradientWorkers>) => {
    const policy = createModel(modelPreset("tiny", 16), { seed: 6 });
    const reference = createModel(modelPreset("tiny", 16), { seed: 9 }); // far from the policy: the KL term counts
    const optimizer = createAdamW(trainableVariables(policy), { lr: 1e-2 });
    const old = await scoreContinuations(policy, pairs, { padId: 0 });
    const seqs = pairs.map((p, i) => ({
      episode: i,
      turn: 0,
      tokens: [...p.context, ...p.continuation],
      lossMask: [...p.context.map(() => 0), ...p.continuation.map(() => 1)],
      extras: {
        advantages: [...p.context.map(() => 0), ...p.continuation.map(() => i % 2 === 0 ? 0.7 : -1.3)],
        oldLogProbs: [...p.context.map(() => 0), ...old[i]!],
      },
    }));
    // micro-batches of at most 12 padded tokens: every minibatch of 4 is 2+ pieces
    const stats = await policyUpdate(
      seqs,
      { policy, optimizer, reference, workers },
      { ...config, klCoef: 0.5, miniBatchSize: 4, maxTokensPerMicroBatch: 12 },
      { padId: 0, seed: 2 },
    );
    const weights = trainableVariables(policy).map((v) => Array.from(v.dataSync()));
    for (const d of [optimizer, policy, reference]) d.dispose();
    return { stats, weights };
  };
  const before = tf.memory().numTensors;
  const alone = await run();
  const workers = createGradientWorkers(2);
  try {
    const parallel = await run(workers);
    assert.ok(workers.liveBytes().every((b) => b > 0), "both workers scored");
    assert.ok(alone.stats.refKl > 0.01, `refKl ${alone.stats.refKl}`);
    assert.deepEqual(parallel.stats, alone.stats);
    assert.deepEqual(parallel.weights, alone.weights);
  } finally {
    workers.close();
  }
  assert.equal(tf.memory().numTensors, before, "no tensor left behind");
});

Deno.test("policyUpdate(): closed workers reject the update and leave no tensor behind", async () => {
  const { createGradientWorkers } = await import("../../lib/train/gradient_workers.ts");
  const policy = createModel(modelPreset("tiny", 16), { seed: 6 });
  const reference = copyModel(policy);
  const optimizer = createAdamW(trainableVariables(policy), { lr: 1e-2 });
  const seqs = [[1, 2, 3, 4], [5, 6, 7, 8]].map((tokens, i) => ({
    episode: i,
    turn: 0,
    tokens,
    lossMask: [0, 1, 1, 1],
    extras: { advantages: [0, 1, 1, 1], oldLogProbs: [0, -1, -1, -1] },
  }));
  const workers = createGradientWorkers(1);
  workers.close();
  const before = tf.memory().numTensors;
  await assert.rejects(
    policyUpdate(seqs, { policy, optimizer, reference, workers }, {
      ...config,
      miniBatchSize: 2,
      maxTokensPerMicroBatch: 4, // one sequence a micro-batch: the reference pass goes to the workers
    }, { padId: 0, seed: 0 }),
    /Cannot score: the gradient workers are closed/,
  );
  assert.equal(tf.memory().numTensors, before, "the micro-batches are freed");
  for (const d of [optimizer, policy, reference]) d.dispose();
});
