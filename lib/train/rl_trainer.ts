/**
 * The RL loop (cleanrl-style, one phase per call): rollout → rewards →
 * (memory credit) → advantages → update → metrics, for PPO, GRPO and MemPO.
 *
 * @module
 */
import { createRng, hashSeed, type Rng } from "../random.ts";
import type { LoadedData } from "../data/build.ts";
import { copyModel, createModel, type Model, trainableVariables } from "../model/params.ts";
import { type AgentPolicy, type Episode, type EpisodeTask, runEpisodes } from "../env/rollout.ts";
import { modelPolicy } from "../env/model_policy.ts";
import { objectivePool } from "../env/questions.ts";
import { teacherFirst } from "../env/teacher_first.ts";
import { grpoAdvantages } from "../advantage/grpo.ts";
import { type AdamW, createAdamW } from "../optim/adamw.ts";
import {
  type Algorithm,
  DEFAULT_JOIN_MAX,
  type ExperimentConfig,
  type RlConfig,
  teacherMemory,
} from "../config/experiment.ts";
import { createTeacher } from "../env/teacher.ts";
import { joinFromPool, tasksFromRecords } from "./demos.ts";
import { computeMemoryCredit, type MemoryCredit, type MemoryCreditOptions } from "./memory_credit.ts";
import { episodeMetrics, equalGroupMetrics, explainedVariance, type MetricsRow } from "./metrics.ts";
import { criticValues, policyUpdate } from "./policy_update.ts";
import { gaeTurnSequences, type OutcomeTurnOptions, outcomeTurnSequences, type TurnSequence } from "./rl_batch.ts";
import type { GradientWorkers } from "./gradient_workers.ts";

/** Everything {@linkcode rlStep} needs. */
export interface RlStepContext {
  /** Which algorithm. */
  algorithm: Algorithm;
  /** Policy (trained). */
  policy: Model;
  /** Its optimizer. */
  optimizer: AdamW;
  /** Frozen SFT reference. */
  reference: Model;
  /** PPO critic. */
  critic?: Model;
  /** Critic optimizer. */
  criticOptimizer?: AdamW;
  /** Data (train questions, tokenizer, search). */
  data: LoadedData;
  /** Hyperparameters. */
  config: RlConfig;
  /** Seed of the RL steps (`rl.seed`, else the experiment seed). */
  seed: number;
  /** The scripted teacher that writes a joined task's first turn (`rl.joinShare`; `createTeacher`). */
  teacher?: AgentPolicy;
  /**
   * Workers for the rollouts (each turn's generation batches), MemPO's memory scoring and the update's reference
   * pass (`UpdateModels.workers`): the same batches as on this thread, so the same numbers. @default this thread
   */
  workers?: GradientWorkers;
  /**
   * Rows of a rollout generation batch at most (`modelPolicy`'s `batchSize`): each turn's requests are cut in order
   * into batches of at most this many rows (and 4096 padded tokens), the unit the workers are dealt; the cut does
   * not depend on the workers, so neither do the episodes. @default 16
   */
  rolloutBatchRows?: number;
  /** Called after the update with the step's trained episodes and their advantages (the run's episode log). */
  onEpisodes?: (step: RlStepEpisodes) => void | Promise<void>;
}

/** What {@linkcode rlStep} shows `onEpisodes`: the episodes it trained on and what each token was credited. */
export interface RlStepEpisodes {
  /** The step. */
  step: number;
  /** The episodes the update used. */
  episodes: readonly Episode[];
  /** One sequence per learned turn: its `episode`, `turn` and `extras.advantages` (context positions first). */
  sequences: readonly TurnSequence[];
  /** A^T per episode (GRPO, MemPO). */
  outcome?: readonly number[];
  /** The memory credit (MemPO). */
  memory?: MemoryCredit;
}

const now = () => performance.now() / 1000;

/** The models of one algorithm's RL: what {@linkcode rlStepContext} puts into a step's context. */
export interface RlModels {
  /** Policy (trained). */
  policy: Model;
  /** Its optimizer. */
  optimizer: AdamW;
  /** Frozen SFT reference. */
  reference: Model;
  /** PPO critic. */
  critic?: Model;
  /** Critic optimizer. */
  criticOptimizer?: AdamW;
}

/**
 * An RL optimizer: AdamW over the model's trainable variables without weight
 * decay (the policy at `rl.lr`, PPO's critic at `rl.criticLr`).
 *
 * Source: verl's actor optimizer (`actor.optim`, weight decay 0 in its PPO example configs).
 *
 * @param model The policy or critic.
 * @param lr Learning rate.
 * @returns A new optimizer (the caller disposes it).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { modelPreset } from "../model/config.ts";
 * import { createModel } from "../model/params.ts";
 * import { rlOptimizer } from "./rl_trainer.ts";
 *
 * const m = createModel(modelPreset("tiny", 20), { trainable: true });
 * const opt = rlOptimizer(m, 5e-5);
 * assert.equal(opt.stepCount, 0);
 * opt.dispose();
 * m.dispose();
 * ```
 */
export function rlOptimizer(model: Model, lr: number): AdamW {
  return createAdamW(trainableVariables(model), { lr, weightDecay: 0 });
}

/**
 * One algorithm's RL models from SFT weights, as `deno task train` starts
 * them: the policy a trainable copy, the reference a frozen copy, and for
 * PPO a critic with the SFT trunk and a fresh value head.
 *
 * ```text
 * policy = copy(sft), reference = copy(sft) frozen, critic = sft trunk + value head (ppo)
 * ```
 *
 * Source: MiniMind `train_ppo.py` (reference and critic from the base weights); verl `RayPPOTrainer` (ref = frozen
 * actor).
 *
 * @param sft The SFT policy (not modified; the caller still owns it).
 * @param algorithm Which algorithm.
 * @param config The experiment (`rl.lr`, `rl.criticLr`, `seed` for the value head).
 * @returns New models and optimizers (the caller disposes them).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { resolveConfig } from "../config/experiment.ts";
 * import { modelPreset } from "../model/config.ts";
 * import { createModel } from "../model/params.ts";
 * import { rlModelsFromSft } from "./rl_trainer.ts";
 *
 * const sft = createModel(modelPreset("tiny", 20), { seed: 1 });
 * const m = rlModelsFromSft(sft, "ppo", resolveConfig("quick"));
 * const w = "model.embed_tokens.weight";
 * assert.equal(m.policy.weights.get(w)!.dataSync()[3], sft.weights.get(w)!.dataSync()[3]);
 * assert.equal(m.critic!.kind, "critic");
 * for (const x of [m.policy, m.reference, m.critic!, m.optimizer, m.criticOptimizer!, sft]) x.dispose();
 * ```
 */
export function rlModelsFromSft(sft: Model, algorithm: Algorithm, config: ExperimentConfig): RlModels {
  const policy = copyModel(sft, { trainable: true, name: algorithm });
  const models: RlModels = {
    policy,
    optimizer: rlOptimizer(policy, config.rl.lr),
    reference: copyModel(sft, { name: "ref" }),
  };
  if (algorithm === "ppo") {
    // critic: the SFT trunk with a fresh value head (MiniMind initialises the critic from the base weights)
    const critic = createModel(sft.config, { kind: "critic", seed: config.seed + 1, name: "critic" });
    for (const [name, v] of critic.weights) if (sft.weights.has(name)) v.assign(sft.weights.get(name)!);
    models.critic = critic;
    models.criticOptimizer = rlOptimizer(critic, config.rl.criticLr);
  }
  return models;
}

/**
 * The context of {@linkcode rlStep} for one algorithm of an experiment, as
 * `deno task train` builds it: the RL config, the RL seed (`rl.seed`, else
 * the experiment's, the same for every algorithm) and, when `rl.joinShare`
 * is set, the scripted teacher that writes a joined task's first turn.
 *
 * Source: this package (the one place a step's context is assembled: the pipeline and `deno task bench`).
 *
 * @param config The experiment.
 * @param data Its data (the teacher writes with its tokenizer).
 * @param algorithm Which algorithm.
 * @param models The models ({@linkcode rlModelsFromSft}, or a checkpoint's).
 * @param workers Workers for the rollouts, MemPO's scoring and the reference pass (`gradientWorkersFor()` in the
 *   pipeline, started once per RL stage). @default this thread
 * @returns The context (the caller disposes the models and closes the workers).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { resolveConfig } from "../config/experiment.ts";
 * import { rlStepContext } from "./rl_trainer.ts";
 *
 * const data = { tokenizer: {} } as never;
 * const models = { policy: {}, optimizer: {}, reference: {} } as never;
 * const ctx = rlStepContext(resolveConfig("default", { seed: 3 }), data, "mempo", models);
 * assert.equal(ctx.seed, 3);
 * assert.equal(ctx.config.joinShare, 0.5);
 * assert.ok(ctx.teacher, "joinShare > 0: the teacher writes the joined first turns");
 * assert.equal(rlStepContext(resolveConfig("quick"), data, "grpo", models).teacher, undefined);
 * ```
 */
export function rlStepContext(
  config: ExperimentConfig,
  data: LoadedData,
  algorithm: Algorithm,
  models: RlModels,
  workers?: GradientWorkers,
): RlStepContext {
  return {
    algorithm,
    ...models,
    data,
    config: config.rl,
    // one seed for every algorithm: step s draws the same questions and sampling seeds for each, so MemPO and GRPO
    // start from identical rollouts and differ only by what they learn (the ablation of the memory advantage)
    seed: config.rl.seed ?? config.seed,
    // rl.joinShare: the teacher writes a joined task's first turn (no drops: the extraction is exact)
    teacher: (config.rl.joinShare ?? 0) > 0
      ? createTeacher(data.tokenizer, { dropProbability: 0, seed: config.seed, memory: teacherMemory(config) })
      : undefined,
    workers,
  };
}

/**
 * MemPO's settings of an RL config, as the two calls of {@linkcode rlStep}
 * take them: how R^M is scored and pooled (`computeMemoryCredit`) and how A^M
 * is applied to the `<mem>` spans (`outcomeTurnSequences`). The one place
 * where `rl.mem*` fields become options.
 *
 * ```text
 * credit:    epsilon, std, threshold ← memThreshold (absent: off), variant ← memCredit
 * sequences: memCoef
 * ```
 *
 * Source: this package (MemPO's defaults: arXiv:2603.00680 and its code).
 *
 * @param config The RL config.
 * @returns The options of both calls.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { resolveConfig } from "../config/experiment.ts";
 * import { mempoOptions } from "./rl_trainer.ts";
 *
 * const { credit, sequences } = mempoOptions(resolveConfig("default", { rl: { memCredit: "infomem" } }).rl);
 * assert.deepEqual(credit, { epsilon: 1e-6, std: "bessel", variant: "infomem", threshold: 0.5 });
 * assert.deepEqual(sequences, { memCoef: 0.1 });
 * ```
 */
export function mempoOptions(config: RlConfig): { credit: MemoryCreditOptions; sequences: OutcomeTurnOptions } {
  return {
    credit: {
      epsilon: config.epsilon,
      std: config.std,
      variant: config.memCredit,
      ...(config.memThreshold === undefined ? {} : { threshold: config.memThreshold }),
    },
    sequences: { memCoef: config.memCoef },
  };
}

/**
 * The questions of one RL step, drawn from the main world's training questions.
 *
 * Source: this package.
 *
 * @param data Loaded data.
 * @param count Questions to draw.
 * @param rng The step's generator.
 * @returns One task per question, group ids 0…count−1.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createRng } from "../random.ts";
 * import { drawQuestions } from "./rl_trainer.ts";
 *
 * const data = { train: [{ prompt: [], question: "main", targets: [["a"]] }] } as never;
 * assert.deepEqual(drawQuestions(data, 3, createRng(0)).map((t) => t.question), ["main", "main", "main"]);
 * ```
 */
export function drawQuestions(
  data: LoadedData,
  count: number,
  rng: Rng,
): EpisodeTask[] {
  return tasksFromRecords(Array.from({ length: count }, () => data.train[rng.int(data.train.length)]!));
}

/**
 * One RL step.
 *
 * ```text
 * 1. collect: Q questions × G rollouts under the memory context policy (old log-probs recorded)
 * 2. rewards: outcome reward per episode (EM with format gate)
 * 3. mempo:   memory rewards P_mem − P_full → pooled memory advantages
 * 4. advantages: GRPO (A^T [+ memCoef·A^M on ⟨mem⟩ spans]) or PPO (critic values → GAE → whiten)
 * 5. update:  PPO-clip + β·KL(ref) [+ value loss]
 * 6. metrics
 * ```
 *
 * With `ctx.workers`, the rollout weights are loaded into every worker at
 * the start of the step, and each turn's generation batches (at most
 * `ctx.rolloutBatchRows` rows), MemPO's scoring batches (P_mem, P_full) and
 * the update's reference pass run there, each batch on the next free worker.
 * The batches and their seeds depend on the step's episodes only, so the
 * metrics are the same to the bit with any number of workers or none
 * (tested over MemPO steps with 0, 1 and 2 workers).
 *
 * Source: Shao et al. 2024 (GRPO, arXiv:2402.03300) Algorithm 1; MemPO (arXiv:2603.00680);
 * Schulman et al. 2017 (PPO) Algorithm 1.
 * Reference: verl `RayPPOTrainer.fit`; MiniMind `train_ppo.py`, `train_grpo.py`.
 *
 * @param ctx Models, data, config.
 * @param step Step index (seeds the questions and the sampling).
 * @returns The step's metrics row.
 *
 * @example One GRPO step of an untrained tiny model on a small world (`tests/train/rl_trainer_test.ts`: 20 steps of
 * each algorithm).
 * ```ts
 * import assert from "node:assert/strict";
 * import { resolveConfig } from "../config/experiment.ts";
 * import { buildData, loadData } from "../data/build.ts";
 * import { modelPreset } from "../model/config.ts";
 * import { createModel } from "../model/params.ts";
 * import { rlModelsFromSft, rlStep, rlStepContext } from "./rl_trainer.ts";
 *
 * const dir = await Deno.makeTempDir();
 * await buildData(dir, 0, { trainCount: 8, testCount: 1, testObjectives: [1], sizes: { distractors: 0 } });
 * const data = await loadData(dir);
 * const config = resolveConfig("quick", { rl: { questionsPerStep: 1, groupSize: 2, maxTurns: 2, maxTurnTokens: 16 } });
 * const sft = createModel(modelPreset("tiny", data.tokenizer.size), { seed: 0 });
 * const models = rlModelsFromSft(sft, "grpo", config);
 * const row = await rlStep(rlStepContext(config, data, "grpo", models), 0);
 * const n = (k: string) => row[k] as number;
 * // 1 question × 2 rollouts of ≤ 2 turns: at most 4 turn sequences, one minibatch of ≤ 16, one update
 * assert.equal(n("train/updates"), 1);
 * assert.ok(n("rollout/turns") >= 1 && n("rollout/turns") <= 2);
 * const parts = ["rollout", "memory_reward", "advantages", "update"].map((k) => n(`time/${k}`));
 * assert.ok(Math.abs(parts.reduce((a, b) => a + b, 0) - n("time/step")) < 1e-9);
 * for (const m of [sft, models.policy, models.reference, models.optimizer]) m.dispose();
 * ```
 */
export async function rlStep(ctx: RlStepContext, step: number): Promise<MetricsRow> {
  const { algorithm, policy, data, config, seed, workers } = ctx;
  const t0 = now();
  checkJoinShare(ctx);
  // the rollout weights on the workers, once a step: every turn's generation batches and MemPO's scoring read them
  if (workers !== undefined) await workers.loadModel(ROLLOUT_SLOT, policy);
  // 1. collect episodes: questions seeded by (seed, step); each asked G times (one group)
  const episodes = await collectEpisodes(ctx, step);
  const t1 = now();
  const row: MetricsRow = { ...episodeMetrics(episodes), ...(algorithm === "ppo" ? {} : equalGroupMetrics(episodes)) };
  // 2.–4. rewards, memory credit, advantages
  const { sequences, outcome, credit, memorySeconds } = await stepAdvantages(ctx, episodes, row);
  const t3 = now();
  // 5. update
  const stats = await policyUpdate(sequences, ctx, config, {
    padId: data.tokenizer.padId,
    seed: hashSeed(seed, 0xadd, step),
    criticLr: config.criticLr,
  });
  const t4 = now();
  // the episode log reads the step (untimed: the metrics are the same with or without it)
  await ctx.onEpisodes?.({ step, episodes, sequences, outcome, memory: credit });
  // 6. metrics
  Object.assign(row, {
    "rollout/sampled_tokens": sequences.reduce((a, s) => a + s.lossMask.reduce((x, y) => x + y, 0), 0),
    "loss/policy": stats.policyLoss,
    "ppo/clip_fraction": stats.clipFraction,
    "ppo/approx_kl": stats.approxKl,
    "kl/ref": stats.refKl,
    "policy/entropy": stats.entropy,
    "train/updates": stats.updates,
    "train/skipped": stats.skipped,
    ...(algorithm === "ppo" ? { "loss/value": stats.valueLoss } : {}),
    "time/rollout": t1 - t0,
    "time/memory_reward": memorySeconds,
    "time/advantages": t3 - t1 - memorySeconds,
    "time/update": t4 - t3,
    "time/step": t4 - t0,
  });
  if (stats.skipped > 0) {
    console.warn(`step ${step}: ${stats.skipped} minibatch update(s) skipped (NaN/Inf loss), weights untouched`);
  }
  return row;
}

/** The workers' slot of the rollout weights (`GradientWorkers.loadModel`). */
const ROLLOUT_SLOT = "rollout";

// rows of a rollout generation batch at most (RlStepContext.rolloutBatchRows): as fast a row as 64 rows, and the main
// job's 32 episodes make two batches a turn, one for each of two workers (docs/performance.md#rollouts-on-workers)
const ROLLOUT_BATCH_ROWS = 16;

// rl.joinShare's requirements, as validateConfig states them
function checkJoinShare(ctx: RlStepContext): void {
  const joinShare = ctx.config.joinShare ?? 0;
  if (joinShare > 0 && ctx.teacher === undefined) {
    throw new RangeError("Cannot run an RL step: rl.joinShare > 0 needs the context's teacher (createTeacher)");
  }
  if (joinShare > 0 && (!ctx.data.questionOnce || ctx.algorithm === "ppo")) {
    // no learned turn may read the joined question; GAE would learn the teacher's first turn
    throw new RangeError(
      `Cannot run an RL step: rl.joinShare > 0 needs data with the question once and an algorithm other than ppo; ` +
        `current values are data.questionOnce ${ctx.data.questionOnce}, algorithm "${ctx.algorithm}"`,
    );
  }
}

/**
 * Phase 1 of {@linkcode rlStep}: the step's episodes. Each turn's generation
 * batches run on the context's workers when it has them (each batch on the
 * next free worker), else here one after the other: the same batches with
 * the same seeds, so the same episodes to the bit.
 */
async function collectEpisodes(ctx: RlStepContext, step: number): Promise<Episode[]> {
  const { policy, data, config, seed, workers } = ctx;
  const rng = createRng(hashSeed(seed, 0x5eed, step));
  const joinShare = config.joinShare ?? 0;
  // rl.joinShare: a share of the questions joined with other training objectives (each group shares its task); the
  // teacher writes a joined task's first turn, the policy carries its open objectives from the second
  const pool = joinShare > 0 ? objectivePool(data.train) : undefined;
  const join = { share: joinShare, max: config.joinMax ?? DEFAULT_JOIN_MAX };
  const sampler = modelPolicy(policy, {
    padId: data.tokenizer.padId,
    temperature: config.temperature,
    batchSize: ctx.rolloutBatchRows ?? ROLLOUT_BATCH_ROWS,
    ...(workers === undefined
      ? {}
      : { generator: (prompts, options) => workers.generate(ROLLOUT_SLOT, prompts, options) }),
  });
  const tasks = drawQuestions(data, config.questionsPerStep, rng)
    .map((t) => {
      if (pool === undefined) return t;
      const joined = joinFromPool(t, pool, join, hashSeed(seed, 0x701, step));
      return joined === t ? t : { ...joined, learnFrom: 1 };
    })
    .flatMap((t) => Array.from({ length: config.groupSize }, () => t));
  return await runEpisodes(joinShare > 0 ? teacherFirst(ctx.teacher!, sampler) : sampler, tasks, data, {
    contextPolicy: "memory",
    maxTurns: config.maxTurns,
    maxTurnTokens: config.maxTurnTokens,
    maxPositions: policy.config.maxPositions,
    seed: hashSeed(seed, 0x7011, step),
  });
}

/**
 * Phases 2–4 of {@linkcode rlStep}: the turn sequences with their
 * advantages (PPO: critic values and GAE; GRPO: A^T; MemPO: A^T + A^M, its
 * memory scoring on the context's workers when it has them), the phases'
 * metrics written into `row`, and the seconds the memory reward took.
 */
async function stepAdvantages(ctx: RlStepContext, episodes: readonly Episode[], row: MetricsRow): Promise<{
  sequences: TurnSequence[];
  outcome?: number[];
  credit?: MemoryCredit;
  memorySeconds: number;
}> {
  const { algorithm, policy, data, config, workers } = ctx;
  if (algorithm === "ppo") {
    const values = await criticValues(ctx.critic!, episodes.map((e) => e.turns), data.tokenizer.padId);
    const sequences = gaeTurnSequences(episodes, values, { gamma: config.gamma, lambda: config.lambda });
    const flatValues = sequences.flatMap((s) => s.extras.oldValues!.filter((_, i) => s.lossMask[i] === 1));
    const flatReturns = sequences.flatMap((s) => s.extras.returns!.filter((_, i) => s.lossMask[i] === 1));
    row["value/explained_variance"] = explainedVariance(flatValues, flatReturns);
    return { sequences, memorySeconds: 0 };
  }
  const t = now();
  const outcome = grpoAdvantages(episodes.map((e) => e.reward), episodes.map((e) => e.task.groupId), {
    epsilon: config.epsilon,
    std: config.std,
  });
  let credit: MemoryCredit | undefined;
  if (algorithm === "mempo") {
    credit = await computeMemoryCredit(policy, episodes, data.tokenizer, {
      ...mempoOptions(config).credit,
      ...(workers === undefined
        ? {}
        : { scorer: (batch, temperature) => workers.scoreBatch(ROLLOUT_SLOT, batch, temperature) }),
    });
    row["memory/reward_mean"] = credit.stats.rewardMean;
    row["memory/reward_std"] = credit.stats.rewardStd;
    row["memory/p_mem"] = credit.stats.pMem;
    row["memory/p_full"] = credit.stats.pFull;
    row["memory/turns"] = credit.stats.turns;
  }
  const memorySeconds = now() - t;
  const sequences = outcomeTurnSequences(episodes, outcome, credit?.advantages, mempoOptions(config).sequences);
  return { sequences, outcome, credit, memorySeconds };
}
