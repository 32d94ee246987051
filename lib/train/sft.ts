/**
 * Supervised fine-tuning step: token-mean cross-entropy on the masked tokens.
 *
 * @module
 */
import { tf } from "../tf.ts";
import { maskedSum } from "../tensor/masked.ts";
import { clipByGlobalNorm } from "../tensor/clip_grad_norm.ts";
import { type Model, trainableVariables } from "../model/params.ts";
import { sequenceLogProbs } from "../model/score.ts";
import type { AdamW } from "../optim/adamw.ts";
import type { LmBatch } from "./collate.ts";
import { accumulateGradients, sumGradients } from "./micro_batches.ts";
import type { GradientWorkers } from "./gradient_workers.ts";

/** Options of {@linkcode sftStep}. */
export interface SftStepOptions {
  /** Global-norm gradient clip. @default 1 */
  maxGradNorm?: number;
  /** Learning rate of this step (schedules). @default the optimizer's */
  lr?: number;
  /**
   * Gradient workers that compute the pieces' gradients at once, one core
   * each (`createGradientWorkers`), when there are two pieces or more; the
   * same numbers as without. @default none: this thread, piece by piece
   */
  workers?: GradientWorkers;
}

/** Result of {@linkcode sftStep} (host numbers: one read per step). */
export interface SftStepResult {
  /** Mean cross-entropy over the masked tokens before the update. */
  loss: number;
  /** Global gradient norm before clipping. */
  gradNorm: number;
  /** True when the loss or gradient was NaN/Inf: the update was skipped, weights untouched. */
  skipped: boolean;
}

/**
 * One SFT update on a collated batch (or on micro-batches of one minibatch,
 * whose gradients are summed with the whole minibatch's token count as the
 * denominator, so the update is the same).
 *
 * ```text
 * L = − Σ mask · log π(target | prefix) / Σ mask
 * g = clip(∇L, maxGradNorm);  θ ← AdamW(θ, g)      (skipped when L or ‖g‖ is not finite)
 * ```
 *
 * Source: Ouyang et al. 2022 (arXiv:2203.02155) §3.5, SFT on demonstrations.
 * Reference: MiniMind `train_full_sft.py` (loss on assistant tokens only).
 *
 * @param model The policy.
 * @param optimizer AdamW over the model's variables.
 * @param batch A batch from `collateLm`, or micro-batches of one minibatch.
 * @param options Gradient clip, learning rate.
 * @returns Loss, gradient norm, skipped flag.
 *
 * @example The loss falls on a repeated sequence
 * ```ts
 * import assert from "node:assert/strict";
 * import { modelPreset } from "../model/config.ts";
 * import { createModel, trainableVariables } from "../model/params.ts";
 * import { createAdamW } from "../optim/adamw.ts";
 * import { collateLm, disposeLmBatch } from "./collate.ts";
 * import { sftStep } from "./sft.ts";
 *
 * const m = createModel(modelPreset("tiny", 12), { seed: 1 });
 * const opt = createAdamW(trainableVariables(m), { lr: 1e-2 });
 * const batch = collateLm([{ tokens: [1, 2, 3, 4, 5], lossMask: [0, 1, 1, 1, 1] }], 0);
 * const first = await sftStep(m, opt, batch);
 * for (let i = 0; i < 20; i++) await sftStep(m, opt, batch);
 * assert.ok((await sftStep(m, opt, batch)).loss < first.loss / 2);
 * disposeLmBatch(batch);
 * opt.dispose();
 * m.dispose();
 * ```
 */
export async function sftStep(
  model: Model,
  optimizer: AdamW,
  batch: LmBatch | readonly LmBatch[],
  options: SftStepOptions = {},
): Promise<SftStepResult> {
  const { maxGradNorm = 1, lr, workers } = options;
  const pieces = Array.isArray(batch) ? batch as readonly LmBatch[] : [batch as LmBatch];
  const numTokens = Math.max(1, pieces.reduce((a, b) => a + b.numTokens, 0));
  // one piece gains nothing from a worker (one core against this thread's pool)
  const { value, grads } = workers !== undefined && pieces.length > 1
    ? sumGradients(await workers.pieceGradients(model, pieces, numTokens))
    : accumulateGradients(
      pieces,
      trainableVariables(model),
      (b) => tf.div(tf.neg(maskedSum(sequenceLogProbs(model, b.tokens, b.targets), b.mask)), numTokens) as tf.Scalar,
    );
  const clipped = clipByGlobalNorm(grads, maxGradNorm);
  const stats = tf.stack([value, clipped.norm]);
  const [loss = NaN, gradNorm = NaN] = await stats.data(); // async: GPU backends cannot read synchronously
  const skipped = !Number.isFinite(loss) || !Number.isFinite(gradNorm);
  if (!skipped) optimizer.apply(clipped.grads, lr);
  tf.dispose([value, stats, clipped.norm, Object.values(grads), Object.values(clipped.grads)]);
  return { loss, gradNorm, skipped };
}
