/**
 * The SFT stage: the teacher's demonstrations (with induction sequences and
 * memory drills mixed in), the warm-ups on a fresh policy, then SFT's steps,
 * a checkpoint every stretch; resumed from its checkpoint, or loaded whole
 * when finished. The SFT policy is kept in the run's scope (RL and the
 * evaluation read it); the optimizer and the workers are the stage's own.
 *
 * @module
 */
import { type AdamW, createAdamW } from "../optim/adamw.ts";
import { loadCheckpoint, saveCheckpoint } from "../model/checkpoint.ts";
import { createModel, type Model, trainableVariables } from "../model/params.ts";
import { sftSeed, teacherMemory } from "../config/experiment.ts";
import type { ContextPolicy } from "../env/context.ts";
import { corpusNames } from "../env/world.ts";
import { demoContexts } from "../eval/longest_contexts.ts";
import type { LmSequence } from "../train/collate.ts";
import { copyTaskSequences } from "../train/copy_task.ts";
import { sftDemoOptions, teacherDemonstrations } from "../train/demos.ts";
import { gradientWorkersFor } from "../train/gradient_workers.ts";
import { memoryDrillSequences } from "../train/memory_drill.ts";
import { trainSft } from "../train/sft_trainer.ts";
import { modelScope } from "./_model_scope.ts";
import type { StageState } from "./_resume.ts";
import type { StageContext } from "./_stage_context.ts";
import { hasWarmup, warmupStages } from "./_warmup_stage.ts";
import { DEMO_CONTEXTS_STATE } from "./evaluate_run.ts";

/** SFT's training sequences: the pool before `sft.drillFrom` and the one after it. */
interface SftPool {
  undrilled: LmSequence[];
  drilled: LmSequence[];
  /** The demonstrations' longest contexts, which the evaluation reports (kept in the checkpoint's state). */
  longest: Partial<Record<ContextPolicy, number>>;
}

/**
 * Runs (or resumes, or loads) the SFT stage.
 *
 * @param ctx The run.
 * @param state The checkpoint's progress (undefined: none yet).
 * @returns The SFT policy, kept in `ctx.scope`; undefined when stopped before its last step (resumable).
 */
export async function sftStage(ctx: StageContext, state: StageState | undefined): Promise<Model | undefined> {
  const { config, outDir, modelConfig } = ctx;
  const dir = `${outDir}/sft`;
  if (state?.done) {
    return ctx.scope.keep((await loadCheckpoint(dir, { expect: modelConfig, trainable: false })).models.policy!);
  }
  const own = modelScope(); // the optimizer: this stage's alone
  try {
    const adamW = (m: Model) => createAdamW(trainableVariables(m), { lr: config.sft.lr });
    let sft: Model;
    let optimizer: AdamW;
    if (state !== undefined) {
      const ck = await loadCheckpoint(dir, { expect: modelConfig, optimizers: { policy: adamW } });
      sft = ctx.scope.keep(ck.models.policy!);
      optimizer = own.keep(ck.optimizers.policy!);
    } else {
      sft = ctx.scope.keep(createModel(modelConfig, { seed: sftSeed(config), name: "sft" }));
      optimizer = own.keep(adamW(sft));
    }
    const pool = await sftPool(ctx);
    const warm = hasWarmup(ctx) && state === undefined;
    let step = state?.step ?? 0;
    // MEMPO_SFT_WORKERS (default: the cores): the steps' micro-batches on gradient workers, one core each (the same
    // numbers as on this thread)
    const workers = step < config.sft.steps || warm ? gradientWorkersFor() : undefined;
    try {
      if (warm) await warmupStages(ctx, sft, optimizer, workers, pool.longest);
      const every = Math.max(10, Math.ceil(config.sft.steps / 5));
      while (step < config.sft.steps && !ctx.stop()) {
        const drillFrom = config.sft.drillFrom ?? 0;
        // a stretch never spans drillFrom: the steps before it draw from the pool without the drills
        const end = Math.min(config.sft.steps, step + every, step < drillFrom ? drillFrom : Infinity);
        await trainSft({
          model: sft,
          optimizer,
          sequences: step < drillFrom ? pool.undrilled : pool.drilled,
          config: config.sft,
          seed: sftSeed(config),
          padId: ctx.data.tokenizer.padId,
          startStep: step,
          endStep: end,
          shouldStop: ctx.stop,
          workers,
          onStep: async (r) => {
            step = r.step + 1;
            await ctx.log({
              stage: "sft",
              step: r.step,
              "sft/loss": r.loss,
              "sft/grad_norm": r.gradNorm,
              "sft/lr": r.lr,
              "sft/tokens": r.tokens,
              "train/skipped": r.skipped ? 1 : 0,
              "time/step": r.seconds,
            });
            ctx.progress({ stage: "sft", step: r.step + 1, total: config.sft.steps, info: { loss: r.loss } });
          },
        });
        await saveCheckpoint(dir, {
          models: { policy: sft },
          optimizers: { policy: optimizer },
          state: { step, done: step >= config.sft.steps, [DEMO_CONTEXTS_STATE]: pool.longest },
        });
      }
    } finally {
      workers?.close(); // open workers keep the process alive
    }
    return step < config.sft.steps ? undefined : sft;
  } finally {
    own.dispose();
  }
}

/**
 * SFT's pool: the teacher's demonstrations, induction sequences mixed in (`sft.inductionMix`: they keep the copying
 * circuit the warm-up formed) and, from `sft.drillFrom`, the memory drills (`sft.drillMix`: the first turn's
 * extraction on random names, at lengths the 1-4-objective demonstrations lack).
 */
async function sftPool(ctx: StageContext): Promise<SftPool> {
  const { config, data } = ctx;
  const seedSft = sftSeed(config);
  const { sequences: demos, episodes, policies } = await teacherDemonstrations(
    data,
    sftDemoOptions(config, ctx.modelConfig.maxPositions),
  );
  const mix = Math.round((config.sft.inductionMix ?? 0) * demos.length);
  const drills = Math.round((config.sft.drillMix ?? 0) * demos.length);
  const undrilled = [
    ...demos,
    ...(mix > 0 ? copyTaskSequences(data.tokenizer, { count: mix, seed: seedSft + 29 }) : []),
  ];
  const drilled = [
    ...undrilled,
    ...(drills > 0
      ? memoryDrillSequences(data.tokenizer, corpusNames(data.corpus), {
        count: drills,
        seed: seedSft + 31,
        bare: teacherMemory(config) === "state-relations-bare", // the teacher's list style
      })
      : []),
  ];
  return { undrilled, drilled, longest: demoContexts(episodes, policies) };
}
