/**
 * The warm-ups before SFT, on the SFT policy and optimizer: the induction
 * warm-up (copying random word sequences forms the circuit that copies names)
 * and the recall warm-up (a fact found by its subject and relation), each
 * going on past its minimum, to its horizon at most, until its loss says the
 * skill has formed; then a checkpoint of the SFT stage at step 0, so a kill
 * during SFT's first steps resumes after them.
 *
 * @module
 */
import type { LmSequence } from "../train/collate.ts";
import { copyTaskSequences } from "../train/copy_task.ts";
import type { GradientWorkers } from "../train/gradient_workers.ts";
import { recallTaskSequences } from "../train/recall_task.ts";
import { trainSft } from "../train/sft_trainer.ts";
import { warmupFormed } from "../train/warmup_stop.ts";
import type { AdamW } from "../optim/adamw.ts";
import type { Model } from "../model/params.ts";
import { saveCheckpoint } from "../model/checkpoint.ts";
import { sftSeed } from "../config/experiment.ts";
import type { ContextPolicy } from "../env/context.ts";
import type { StageContext } from "./_stage_context.ts";
import { DEMO_CONTEXTS_STATE } from "./evaluate_run.ts";

// induction (and recall) sequences per warm-up step
const WARMUP_BATCH_SIZE = 32;

/** Whether a run's SFT stage has a warm-up (`sft.pretrainSteps` or `sft.recallSteps`). */
export function hasWarmup(ctx: StageContext): boolean {
  return (ctx.config.sft.pretrainSteps ?? 0) > 0 || (ctx.config.sft.recallSteps ?? 0) > 0;
}

/**
 * Runs the warm-ups on `model` and saves the SFT checkpoint at step 0.
 *
 * @param ctx The run.
 * @param model The SFT policy (trained in place).
 * @param optimizer Its optimizer.
 * @param workers Gradient workers for the steps, if any.
 * @param longest The demonstrations' longest contexts, recorded in the checkpoint's state.
 */
export async function warmupStages(
  ctx: StageContext,
  model: Model,
  optimizer: AdamW,
  workers: GradientWorkers | undefined,
  longest: Partial<Record<ContextPolicy, number>>,
): Promise<void> {
  const { config, data } = ctx;
  const seedSft = sftSeed(config);
  const pretrainSteps = config.sft.pretrainSteps ?? 0;
  const recallSteps = config.sft.recallSteps ?? 0;
  const warmup = async (
    stage: "pretrain" | "recall",
    sequences: LmSequence[],
    minSteps: number,
    horizon: number,
    threshold: number | undefined,
  ) => {
    const losses: number[] = [];
    await trainSft({
      model,
      optimizer,
      sequences,
      // the cosine runs to the horizon (default: the warm-up's last step)
      config: { ...config.sft, steps: horizon, batchSize: WARMUP_BATCH_SIZE, horizons: [] },
      endStep: threshold === undefined ? minSteps : horizon,
      ...(threshold === undefined ? {} : { shouldStop: () => warmupFormed(losses, minSteps, threshold) }),
      seed: seedSft + (stage === "pretrain" ? 17 : 19),
      padId: data.tokenizer.padId,
      workers,
      onStep: async (r) => {
        losses.push(r.loss);
        await ctx.log({
          stage,
          step: r.step,
          "sft/loss": r.loss,
          "sft/lr": r.lr,
          "sft/tokens": r.tokens,
          "time/step": r.seconds,
        });
        // past the minimum (a loss threshold) the count runs to the horizon
        ctx.progress({
          stage,
          step: r.step + 1,
          total: r.step < minSteps ? minSteps : horizon,
          info: { loss: r.loss },
        });
      },
    });
  };
  if (pretrainSteps > 0) {
    await warmup(
      "pretrain",
      copyTaskSequences(data.tokenizer, { count: 8192, seed: seedSft }),
      pretrainSteps,
      config.sft.pretrainHorizon ?? pretrainSteps,
      config.sft.pretrainLoss,
    );
  }
  if (recallSteps > 0) {
    await warmup(
      "recall",
      recallTaskSequences(data.tokenizer, { count: 8192, seed: seedSft + 37 }),
      recallSteps,
      config.sft.recallHorizon ?? recallSteps,
      config.sft.recallLoss,
    );
  }
  await saveCheckpoint(`${ctx.outDir}/sft`, {
    models: { policy: model },
    optimizers: { policy: optimizer },
    state: { step: 0, done: config.sft.steps === 0, [DEMO_CONTEXTS_STATE]: longest },
  });
}
