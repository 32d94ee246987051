/**
 * The SFT loop: seeded minibatches of turn sequences, warm-up + cosine
 * learning rate, one `sftStep` each.
 *
 * @module
 */
import { createRng, hashSeed } from "../random.ts";
import type { Model } from "../model/params.ts";
import type { AdamW } from "../optim/adamw.ts";
import { collateLm, disposeLmBatch, type LmSequence } from "./collate.ts";
import { cosineLr, stagedHorizon } from "../optim/schedule.ts";
import { sftStep } from "./sft.ts";
import { splitBalanced } from "./micro_batches.ts";
import type { GradientWorkers } from "./gradient_workers.ts";
import type { SftConfig } from "../config/experiment.ts";

/** One logged SFT step. */
export interface SftLogRow {
  /** Step index (0-based). */
  step: number;
  /** Cross-entropy on the masked tokens. */
  loss: number;
  /** Gradient norm before clipping. */
  gradNorm: number;
  /** Learning rate used. */
  lr: number;
  /** Tokens learned from. */
  tokens: number;
  /** Whether the step was skipped (NaN/Inf). */
  skipped: boolean;
  /** Seconds the step took. */
  seconds: number;
}

/** Options of {@linkcode trainSft}. */
export interface TrainSftOptions {
  /** The policy. */
  model: Model;
  /** AdamW over the policy. */
  optimizer: AdamW;
  /** Training sequences. */
  sequences: readonly LmSequence[];
  /** Hyperparameters. */
  config: SftConfig;
  /** Seed (minibatch k draws with `hashSeed(seed, k)`). */
  seed: number;
  /** Padding id. */
  padId: number;
  /** First step (resume). @default 0 */
  startStep?: number;
  /** Stop before this step (for checkpoints in between). @default config.steps */
  endStep?: number;
  /** Called after each step. */
  onStep?: (row: SftLogRow) => void | Promise<void>;
  /** Padded tokens per micro-batch (bounds the wasm heap). @default 2048 */
  maxTokensPerMicroBatch?: number;
  /** Returns true to stop early (Ctrl-C). */
  shouldStop?: () => boolean;
  /** Gradient workers for the steps' micro-batches (`sftStep`'s `workers`). @default none */
  workers?: GradientWorkers;
}

/**
 * Trains the policy on demonstrations; returns the log.
 *
 * ```text
 * for step in [start, end):  batch ~ seeded sample of B sequences
 *                            sftStep(lr = cosineLr(step, horizon = stagedHorizon(step, config.horizons, S)))
 * ```
 *
 * Source: Ouyang et al. 2022 §3.5 (SFT stage); nanoGPT training loop.
 *
 * @param options Model, optimizer, data, config, seed, hooks.
 * @returns One row per step run.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { modelPreset } from "../model/config.ts";
 * import { createModel, trainableVariables } from "../model/params.ts";
 * import { createAdamW } from "../optim/adamw.ts";
 * import { trainSft } from "./sft_trainer.ts";
 *
 * const model = createModel(modelPreset("tiny", 10), { seed: 1 });
 * const optimizer = createAdamW(trainableVariables(model), { lr: 1e-2 });
 * const log = await trainSft({
 *   model, optimizer, seed: 0, padId: 0,
 *   sequences: [{ tokens: [1, 2, 3, 4], lossMask: [0, 1, 1, 1] }],
 *   config: { steps: 30, batchSize: 2, lr: 1e-2, warmupSteps: 2, demos: 1, dropProbability: 0 },
 * });
 * assert.ok(log.at(-1)!.loss < log[0]!.loss);
 * optimizer.dispose();
 * model.dispose();
 * ```
 */
export async function trainSft(options: TrainSftOptions): Promise<SftLogRow[]> {
  const { model, optimizer, sequences, config, seed, padId, startStep = 0, endStep = config.steps } = options;
  if (sequences.length === 0) throw new RangeError("Cannot train SFT: no sequences");
  const log: SftLogRow[] = [];
  for (let step = startStep; step < Math.min(endStep, config.steps); step++) {
    if (options.shouldStop?.()) break;
    const t0 = performance.now();
    const rng = createRng(hashSeed(seed, step));
    const picked = Array.from({ length: config.batchSize }, () => sequences[rng.int(sequences.length)]!);
    // an even number of pieces of about equal size: the same pieces (the same sums, to the bit) on this thread or
    // shared out over gradient workers
    const micro = splitBalanced(picked, options.maxTokensPerMicroBatch ?? 2048).map((g) => collateLm(g, padId));
    const lr = cosineLr(step, stagedHorizon(step, config.horizons ?? [], config.steps), config.lr, config.warmupSteps);
    const r = await sftStep(model, optimizer, micro, { lr, workers: options.workers });
    const tokens = micro.reduce((a, b) => a + b.numTokens, 0);
    const row = { step, ...r, lr, tokens, seconds: (performance.now() - t0) / 1000 };
    micro.forEach(disposeLmBatch);
    log.push(row);
    await options.onStep?.(row);
  }
  return log;
}
