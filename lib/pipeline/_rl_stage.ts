/**
 * One RL algorithm's stage: its policy from the SFT weights (or its
 * checkpoint), `rl.steps` steps of `rlStep`, a checkpoint every
 * `rl.checkpointEvery` steps, at the end and at a stop; loaded whole when
 * finished. The trained policy is kept in the run's scope (the evaluation
 * reads it); the reference, the critic, the optimizers and the workers are
 * the stage's own.
 *
 * @module
 */
import type { Algorithm } from "../config/experiment.ts";
import { loadCheckpoint, saveCheckpoint } from "../model/checkpoint.ts";
import { copyModel, type Model } from "../model/params.ts";
import { faultPoint } from "../fault_point.ts";
import { gradientWorkersFor } from "../train/gradient_workers.ts";
import { type RlModels, rlModelsFromSft, rlOptimizer, rlStep, rlStepContext } from "../train/rl_trainer.ts";
import { type ModelScope, modelScope } from "./_model_scope.ts";
import type { StageState } from "./_resume.ts";
import type { StageContext } from "./_stage_context.ts";
import { rlEpisodeLog } from "./run_episodes.ts";

/** Options of {@linkcode rlStage}. */
export interface RlStageOptions {
  /** The algorithm. */
  algorithm: Algorithm;
  /** The SFT policy: the start and the reference. */
  sft: Model;
  /** The checkpoint's progress (undefined: none yet). */
  state: StageState | undefined;
  /** Episodes of each step kept in `episodes/<algorithm>.jsonl` (`runPipeline`'s `rlEpisodes`). */
  rlEpisodes: number | undefined;
  /** Steps run so far by every algorithm of this call, and the most it may run (tests of interruption). */
  budget: { run: number; max: number };
}

/**
 * Runs (or resumes, or loads) one algorithm's RL stage.
 *
 * @param ctx The run.
 * @param options The algorithm, the SFT policy, the checkpoint's progress, the episodes kept, the step budget.
 * @returns The trained policy, kept in `ctx.scope`; undefined when stopped before its last step (resumable).
 */
export async function rlStage(ctx: StageContext, options: RlStageOptions): Promise<Model | undefined> {
  const { config, outDir, modelConfig, data } = ctx;
  const { algorithm, state, budget } = options;
  const dir = `${outDir}/${algorithm}`;
  if (state?.done) {
    return ctx.scope.keep((await loadCheckpoint(dir, { expect: modelConfig, trainable: false })).models.policy!);
  }
  const own = modelScope(); // the reference, the critic and the optimizers: this stage's alone
  try {
    const models = await rlModels(ctx, options, own);
    const { policy, optimizer, critic, criticOptimizer } = models;
    let step = state?.step ?? 0;
    const ctxStep = {
      // MEMPO_SFT_WORKERS (default: the cores): rollouts, MemPO's scoring and the reference pass on workers (same numbers)
      ...rlStepContext(config, data, algorithm, models, gradientWorkersFor()),
      onEpisodes: rlEpisodeLog(outDir, algorithm, data, config, options.rlEpisodes),
    };
    const save = () =>
      saveCheckpoint(dir, {
        models: critic ? { policy, critic } : { policy },
        optimizers: critic && criticOptimizer ? { policy: optimizer, critic: criticOptimizer } : { policy: optimizer },
        state: { step, done: step >= config.rl.steps },
      });
    try {
      while (step < config.rl.steps) {
        if (ctx.stop() || budget.run >= budget.max) {
          await save();
          return undefined;
        }
        const row = await rlStep(ctxStep, step);
        await ctx.log({ stage: algorithm, step, ...row });
        faultPoint("rl-step-logged");
        ctx.progress({
          stage: algorithm,
          step: step + 1,
          total: config.rl.steps,
          info: { reward: row["rollout/reward_mean"]!, em: row["rollout/em"]! },
        });
        step += 1;
        budget.run += 1;
        if (step % config.rl.checkpointEvery === 0 || step === config.rl.steps) await save();
      }
    } finally {
      ctxStep.workers?.close(); // open workers keep the process alive
    }
    return policy;
  } finally {
    own.dispose();
  }
}

/**
 * The stage's models, from its checkpoint or from the SFT weights: the policy kept in the run's scope, the rest in
 * the stage's own.
 */
async function rlModels(ctx: StageContext, options: RlStageOptions, own: ModelScope): Promise<RlModels> {
  const { config, outDir, modelConfig } = ctx;
  const { algorithm, sft, state } = options;
  let models: RlModels;
  if (state !== undefined) {
    const policyOpt = (m: Model) => rlOptimizer(m, config.rl.lr);
    const ck = await loadCheckpoint(`${outDir}/${algorithm}`, {
      expect: modelConfig,
      optimizers: algorithm === "ppo"
        ? { policy: policyOpt, critic: (m) => rlOptimizer(m, config.rl.criticLr) }
        : { policy: policyOpt },
    });
    models = {
      policy: ck.models.policy!,
      optimizer: ck.optimizers.policy!,
      reference: copyModel(sft, { name: "ref" }),
      critic: ck.models.critic,
      criticOptimizer: ck.optimizers.critic,
    };
  } else models = rlModelsFromSft(sft, algorithm, config);
  ctx.scope.keep(models.policy);
  for (const x of [models.reference, models.optimizer, models.critic, models.criticOptimizer]) {
    if (x !== undefined) own.keep(x);
  }
  return models;
}
