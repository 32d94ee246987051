import assert from "node:assert/strict";
import { tf } from "../../lib/tf.ts";
import { buildData, loadData } from "../../lib/data/build.ts";
import { modelPreset } from "../../lib/model/config.ts";
import { copyModel, createModel, trainableVariables } from "../../lib/model/params.ts";
import { createAdamW } from "../../lib/optim/adamw.ts";
import { resolveConfig } from "../../lib/config/experiment.ts";
import { drawQuestions, mempoOptions, rlStep } from "../../lib/train/rl_trainer.ts";
import { createTeacher } from "../../lib/env/teacher.ts";
import type { AgentPolicy, TurnRequest } from "../../lib/env/rollout.ts";
import { createRng, hashSeed } from "../../lib/random.ts";

const dir = await Deno.makeTempDir();
await buildData(dir, 13, { trainCount: 20, testCount: 1, sizes: { distractors: 0 } });
const data = await loadData(dir);

for (const algorithm of ["mempo", "grpo", "ppo"] as const) {
  Deno.test(`rlStep(${algorithm}): every metric is finite, the policy moves, the reference does not; tensors stay flat over 20 steps`, async () => {
    const config =
      resolveConfig("quick", { rl: { questionsPerStep: 2, groupSize: 2, maxTurnTokens: 16, lr: 1e-2 } }).rl;
    const policy = createModel(modelPreset("tiny", data.tokenizer.size), { seed: 1 });
    const reference = copyModel(policy);
    const optimizer = createAdamW(trainableVariables(policy), { lr: config.lr, weightDecay: 0 });
    const critic = algorithm === "ppo"
      ? createModel(modelPreset("tiny", data.tokenizer.size), { kind: "critic", seed: 2 })
      : undefined;
    const criticOptimizer = critic ? createAdamW(trainableVariables(critic), { lr: config.criticLr }) : undefined;
    const ctx = { algorithm, policy, optimizer, reference, critic, criticOptimizer, data, config, seed: 3 };
    const w = "model.layers.0.self_attn.q_proj.weight";
    const before = policy.weights.get(w)!.dataSync().slice();
    let count = 0;
    let signal = algorithm === "ppo"; // the critic's GAE advantages are never all zero
    for (let step = 0; step < 20; step++) {
      const row = await rlStep(ctx, step);
      if (Number(row["grpo/frac_zero_std"] ?? 1) < 1 || Number(row["memory/turns"] ?? 0) > 0) signal = true;
      for (const [k, v] of Object.entries(row)) {
        if (typeof v === "number" && k !== "value/explained_variance") assert.ok(Number.isFinite(v), `${k} = ${v}`);
      }
      if (step === 1) count = tf.memory().numTensors;
      if (step > 1) assert.equal(tf.memory().numTensors, count, `tensor count grew at step ${step}`);
    }
    // all-equal rewards give zero GRPO advantages and, at ρ = 1 with π = π_ref, zero gradient: no move
    if (signal) assert.notDeepEqual(policy.weights.get(w)!.dataSync(), before, "the policy was updated");
    else assert.deepEqual(policy.weights.get(w)!.dataSync(), before, "no learning signal, no update");
    assert.deepEqual(reference.weights.get(w)!.dataSync(), before, "the reference is frozen");
    for (const m of [policy, reference, critic]) m?.dispose();
    optimizer.dispose();
    criticOptimizer?.dispose();
  });
}

Deno.test("rlStep with rl.joinShare: joined groups, the teacher writes each joined episode's first turn and only it", async () => {
  const qoDir = await Deno.makeTempDir();
  await buildData(qoDir, 13, { trainCount: 20, testCount: 1, sizes: { distractors: 0 }, questionOnce: true });
  const qo = await loadData(qoDir);
  const config = {
    ...resolveConfig("quick", {
      data: { questionOnce: true },
      rl: { questionsPerStep: 3, groupSize: 2, maxTurnTokens: 16, maxTurns: 16, joinShare: 1, joinMax: 2 },
    }).rl,
    maxTurns: 3, // short episodes: the test reads who wrote which turn, not the answers
  };
  const policy = createModel(modelPreset("tiny", qo.tokenizer.size), { seed: 1 });
  const reference = copyModel(policy);
  const optimizer = createAdamW(trainableVariables(policy), { lr: config.lr, weightDecay: 0 });
  const scripted = createTeacher(qo.tokenizer, { dropProbability: 0, seed: 0 });
  // what the teacher was asked, read when asked (the episodes grow after)
  const asked: { turns: number; task: TurnRequest["episode"]["task"] }[] = [];
  const teacher: AgentPolicy = {
    nextTurns: (requests, options) => {
      asked.push(...requests.map((r) => ({ turns: r.episode.turns.length, task: r.episode.task })));
      return scripted.nextTurns(requests, options);
    },
  };
  const ctx = { algorithm: "grpo" as const, policy, optimizer, reference, data: qo, config, seed: 3, teacher };
  await rlStep(ctx, 0);
  // every question was joined (share 1), so the teacher wrote exactly one turn per episode: the first
  assert.equal(asked.length, 3 * 2);
  assert.ok(asked.every((r) => r.turns === 0 && r.task.learnFrom === 1));
  const drawn = drawQuestions(qo, 3, createRng(hashSeed(3, 0x5eed, 0)));
  const tasks = asked.map((r) => r.task);
  tasks.forEach((t, i) => {
    const own = drawn[Math.floor(i / 2)]!;
    assert.ok(t.subQuestions!.length > own.subQuestions!.length, "more objectives than the question drawn");
    assert.deepEqual(t.subQuestions!.slice(-own.subQuestions!.length), own.subQuestions, "its own objectives last");
    assert.equal(t.groupId, own.groupId);
  });
  assert.deepEqual(tasks[0], tasks[1], "a group shares its joined task");
  await assert.rejects(rlStep({ ...ctx, teacher: undefined }, 1), /rl.joinShare > 0 needs the context's teacher/);
  await assert.rejects(
    rlStep({ ...ctx, data: { ...qo, questionOnce: false } }, 1),
    /rl.joinShare > 0 needs data with the question once .*data.questionOnce false, algorithm "grpo"$/,
  );
  await assert.rejects(rlStep({ ...ctx, algorithm: "ppo" }, 1), /algorithm other than ppo.*algorithm "ppo"$/);
  for (const m of [policy, reference]) m.dispose();
  optimizer.dispose();
});

Deno.test("drawQuestions(): the main world's training questions, drawn by the step's generator", async () => {
  const auxDir = await Deno.makeTempDir();
  await buildData(auxDir, 14, { trainCount: 12, testCount: 1, auxWorlds: 2, auxObjectives: [3] });
  const d = await loadData(auxDir);
  const main = drawQuestions(d, 6, createRng(5));
  const rng = createRng(5);
  assert.deepEqual(
    main.map((t) => t.question),
    Array.from({ length: 6 }, () => d.train[rng.int(d.train.length)]!.question),
  );
  assert.deepEqual(main.map((t) => t.groupId), [0, 1, 2, 3, 4, 5]);
  assert.ok(main.every((t) => t.search === undefined), "searched in the main world's corpus");
});

Deno.test("mempoOptions(): each rl.mem* setting reaches its own option of computeMemoryCredit or outcomeTurnSequences, and nothing else", () => {
  const base = mempoOptions(resolveConfig("default").rl);
  assert.deepEqual(base.credit, { epsilon: 1e-6, std: "bessel", variant: undefined, threshold: 0.5 });
  assert.deepEqual(base.sequences, { memCoef: 0.1 });
  const cases = [
    ["memThreshold", 0.25, "credit", "threshold"],
    ["epsilon", 1e-3, "credit", "epsilon"],
    ["std", "population", "credit", "std"],
    ["memCoef", 0.25, "sequences", "memCoef"],
    ["memCredit", "infomem", "credit", "variant"],
  ] as const;
  for (const [field, value, call, option] of cases) {
    const got = mempoOptions(resolveConfig("default", { rl: { [field]: value } }).rl);
    const want = { ...base, [call]: { ...base[call], [option]: value } };
    assert.deepEqual(got, want, `rl.${field} = ${value}`);
  }
  // no threshold: the key is absent, so computeMemoryCredit's default (off) applies
  const off = mempoOptions({ ...resolveConfig("default").rl, memThreshold: undefined });
  assert.equal("threshold" in off.credit, false);
});

Deno.test("rlStep on 0, 1 and 2 workers: the same metrics rows to the bit (time/* aside) over MemPO steps of the quick preset from the release", async () => {
  const { loadRelease } = await import("../../lib/release/release.ts");
  const { createGradientWorkers } = await import("../../lib/train/gradient_workers.ts");
  const { rlModelsFromSft, rlStepContext } = await import("../../lib/train/rl_trainer.ts");
  // the released SFT policy writes real multi-turn episodes with memories (an untrained one ends at turn 1), so the
  // rollouts, the memory scoring and the reference pass all have work; its tokenizer is the default data's
  const releaseDir = new URL("../../release/sft", import.meta.url).pathname;
  const dataDir = await Deno.makeTempDir();
  await buildData(dataDir, 0, resolveConfig("default").data);
  const d = await loadData(dataDir);
  const { model: sft } = await loadRelease(releaseDir);
  const config = resolveConfig("quick", {
    data: { questionOnce: true },
    rl: { questionsPerStep: 2, groupSize: 4, joinShare: 0.5, joinMax: 3 },
  });
  const run = async (size: number) => {
    const models = rlModelsFromSft(sft, "mempo", config);
    const workers = size === 0 ? undefined : createGradientWorkers(size);
    // 8 episodes in batches of at most 3 rows: a turn's batches go to both workers
    const ctx = { ...rlStepContext(config, d, "mempo", models, workers), rolloutBatchRows: 3 };
    const rows = [];
    try {
      for (let step = 0; step < 2; step++) rows.push(await rlStep(ctx, step));
      if (workers !== undefined) assert.ok(workers.liveBytes().every((b) => b > 0), "every worker had jobs");
    } finally {
      workers?.close();
      for (const m of [models.policy, models.reference, models.optimizer]) m.dispose();
    }
    return rows.map((r) => Object.fromEntries(Object.entries(r).filter(([k]) => !k.startsWith("time/"))));
  };
  try {
    const alone = await run(0);
    assert.ok(alone.some((r) => Number(r["memory/turns"]) > 0), "the steps score memories");
    assert.ok(alone.every((r) => Number(r["rollout/turns"]) > 1 && Number(r["train/updates"]) > 0));
    assert.notDeepEqual(alone[0], alone[1], "the steps differ");
    const one = await run(1);
    assert.deepEqual(one, alone);
    assert.deepEqual(await run(2), one);
  } finally {
    sft.dispose();
    await Deno.remove(dataDir, { recursive: true });
  }
});
