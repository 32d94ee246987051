/**
 * The one update step shared by PPO, GRPO and MemPO: PPO-clip loss plus the
 * reference-KL penalty (plus the clipped value loss for PPO's critic), over
 * shuffled minibatches for `ppoEpochs`, with AdamW and global-norm clipping.
 * Old log-probs stay fixed; a NaN/Inf loss skips the step, weights untouched.
 *
 * @module
 */
import { tf } from "../tf.ts";
import { createRng, hashSeed, shuffled } from "../random.ts";
import { type Model, trainableVariables } from "../model/params.ts";
import { sequenceLogProbs } from "../model/score.ts";
import { forwardHidden, valueHead } from "../model/transformer.ts";
import { clippedValueLoss } from "../loss/value_clip.ts";
import { clipByGlobalNorm } from "../tensor/clip_grad_norm.ts";
import type { AdamW } from "../optim/adamw.ts";
import { collateLm, disposeLmBatch, type LmBatch } from "./collate.ts";
import { accumulateGradients, splitByTokens } from "./micro_batches.ts";
import { UPDATE_METRICS, type UpdateLossConfig, type UpdatePiece, updatePieceLoss } from "./update_loss.ts";
import type { GradientWorkers } from "./gradient_workers.ts";
import type { TurnSequence } from "./rl_batch.ts";

/** Hyperparameters of {@linkcode policyUpdate}: the micro-batch loss's ({@linkcode UpdateLossConfig}) and these. */
export interface PolicyUpdateConfig extends UpdateLossConfig {
  /** Epochs over the batch. */
  ppoEpochs: number;
  /** Sequences per minibatch. */
  miniBatchSize: number;
  /** Gradient-norm clip. */
  maxGradNorm: number;
  /** Value-loss coefficient (PPO). */
  vfCoef: number;
  /** Value clip range (PPO). */
  valueClip: number;
  /** Padded tokens per micro-batch. @default 2048 */
  maxTokensPerMicroBatch?: number;
}

/** Models and optimizers the update touches. */
export interface UpdateModels {
  /** The policy (trained). */
  policy: Model;
  /** Its optimizer. */
  optimizer: AdamW;
  /** The frozen reference. */
  reference: Model;
  /** PPO's critic (trained when present). */
  critic?: Model;
  /** The critic's optimizer. */
  criticOptimizer?: AdamW;
  /**
   * Workers for the reference's log-probs when a minibatch has 2+ micro-batches (`pieceLogProbs`: the same values
   * to the bit, each micro-batch's forward on a core of its own). @default this thread
   */
  workers?: GradientWorkers;
}

/** Averaged diagnostics of an update. */
export interface UpdateStats {
  /** PPO-clip loss (token mean). */
  policyLoss: number;
  /** Share of clipped tokens. */
  clipFraction: number;
  /** k1 estimate of KL(π_old ‖ π_θ). */
  approxKl: number;
  /** Reference KL (configured estimator). */
  refKl: number;
  /** Mean token entropy. */
  entropy: number;
  /** Value loss (PPO; 0 otherwise). */
  valueLoss: number;
  /** Minibatch updates applied. */
  updates: number;
  /** Minibatch updates skipped for a non-finite loss. */
  skipped: number;
}

type Metric = (typeof UPDATE_METRICS)[number];

/** A collated micro-batch with its reference log-probs, as the loss reads it (views of its tensors, not copies). */
function updatePiece(b: LmBatch, ref: tf.Tensor2D): UpdatePiece {
  const { tokens, targets, mask, numTokens } = b;
  return {
    tokens,
    targets,
    mask,
    numTokens,
    oldLogProbs: b.extras.oldLogProbs!,
    advantages: b.extras.advantages!,
    ref,
  };
}

function padTo(rows: number[][], L: number, padId: number): number[][] {
  return rows.map((r) => (r.length >= L ? r.slice(0, L) : [...r, ...new Array(L - r.length).fill(padId)]));
}

/**
 * Runs the PPO-style update over training sequences.
 *
 * ```text
 * for epoch, minibatch M (N tokens):
 *   L = Σ_micro [ppoClip(logπ, logπ_old, Â; token-sum / N) + β · KL(logπ, logπ_ref; token-sum / N)]
 *   θ ← AdamW(θ, clip(∇L))                    (skipped when L or ‖∇L‖ is not finite)
 *   critic (PPO): φ ← AdamW(φ, clip(∇ vfCoef · clippedValueLoss))
 * ```
 *
 * Source: Schulman et al. 2017 Algorithm 1; Shao et al. 2024 Eq. 3 (GRPO's KL in the loss).
 * Reference: verl `dp_actor.update_policy` (micro-batches normalised by the minibatch's tokens); MiniMind `train_ppo.py`.
 *
 * @param sequences Turn sequences with `advantages` and `oldLogProbs` (PPO: `returns`, `oldValues`).
 * @param models Policy, reference, optimizers (critic for PPO).
 * @param config Hyperparameters.
 * @param options `padId` and the step's `seed` (minibatch order).
 * @returns Averaged diagnostics.
 *
 * @example An update moves the policy; the reference stays
 * ```ts
 * import assert from "node:assert/strict";
 * import { modelPreset } from "../model/config.ts";
 * import { copyModel, createModel, trainableVariables } from "../model/params.ts";
 * import { createAdamW } from "../optim/adamw.ts";
 * import { policyUpdate } from "./policy_update.ts";
 *
 * const policy = createModel(modelPreset("tiny", 12), { seed: 1 });
 * const reference = copyModel(policy);
 * const optimizer = createAdamW(trainableVariables(policy), { lr: 1e-2 });
 * const seq = { episode: 0, turn: 0, tokens: [1, 2, 3], lossMask: [0, 1, 1], extras: { advantages: [0, 1, 1], oldLogProbs: [0, -2.5, -2.5] } };
 * const stats = await policyUpdate([seq], { policy, optimizer, reference }, {
 *   clipLow: 0.2, clipHigh: 0.2, klCoef: 0.001, klEstimator: "low_var_kl", ppoEpochs: 1, miniBatchSize: 1,
 *   maxGradNorm: 1, temperature: 1, vfCoef: 0.5, valueClip: 0.5,
 * }, { padId: 0, seed: 0 });
 * assert.equal(stats.updates, 1);
 * optimizer.dispose();
 * policy.dispose();
 * reference.dispose();
 * ```
 */
export async function policyUpdate(
  sequences: readonly TurnSequence[],
  models: UpdateModels,
  config: PolicyUpdateConfig,
  options: { padId: number; seed: number; lr?: number; criticLr?: number },
): Promise<UpdateStats> {
  const { policy, optimizer, reference, critic, criticOptimizer } = models;
  const maxTokens = config.maxTokensPerMicroBatch ?? 2048;
  const sums = { policyLoss: 0, clipFraction: 0, approxKl: 0, refKl: 0, entropy: 0, valueLoss: 0 };
  let updates = 0;
  let skipped = 0;
  for (let epoch = 0; epoch < config.ppoEpochs; epoch++) {
    const order = shuffled(sequences, createRng(hashSeed(options.seed, epoch)));
    for (let start = 0; start < order.length; start += config.miniBatchSize) {
      const minibatch = order.slice(start, start + config.miniBatchSize);
      const micro = splitByTokens(minibatch, maxTokens).map((g) => collateLm(g, options.padId));
      const N = Math.max(1, micro.reduce((a, b) => a + b.numTokens, 0));
      // reference log-probs (no gradient), one forward per micro-batch, on the workers when there are 2+
      const refs = models.workers !== undefined && micro.length >= 2
        ? await models.workers.pieceLogProbs(reference, micro, config.temperature).catch((e) => {
          micro.forEach(disposeLmBatch); // a failed worker leaves nothing behind
          throw e;
        })
        : micro.map((b) => tf.tidy(() => sequenceLogProbs(reference, b.tokens, b.targets, config.temperature)));
      const metric = Object.fromEntries(UPDATE_METRICS.map((k) => [k, tf.scalar(0)])) as Record<Metric, tf.Scalar>;
      const addMetric = (k: Metric, v: tf.Scalar) => {
        const next = tf.keep(tf.add(metric[k], v) as tf.Scalar);
        metric[k].dispose();
        metric[k] = next;
      };
      const pieces = micro.map((b, i) => updatePiece(b, refs[i]!));
      const { grads, value } = accumulateGradients(pieces, trainableVariables(policy), (piece) => {
        const { loss, metrics } = updatePieceLoss(policy, piece, config, N);
        for (const k of UPDATE_METRICS) addMetric(k, metrics[k]);
        return loss;
      });
      const clipped = clipByGlobalNorm(grads, config.maxGradNorm);
      const read = tf.stack([
        value,
        clipped.norm,
        metric.pg,
        metric.clip,
        metric.approxKl,
        metric.refKl,
        metric.entropy,
      ]);
      const [loss, norm, pg, clip, approxKl, refKl, entropy] = Array.from(await read.data());
      const finite = Number.isFinite(loss!) && Number.isFinite(norm!);
      if (finite) optimizer.apply(clipped.grads, options.lr);
      tf.dispose([
        read,
        value,
        clipped.norm,
        Object.values(grads),
        Object.values(clipped.grads),
        Object.values(metric),
        refs,
      ]);

      const { valueLoss, finite: criticFinite } = critic !== undefined && criticOptimizer !== undefined
        ? await criticStep(micro, critic, criticOptimizer, config, { batchNumTokens: N, lr: options.criticLr })
        : { valueLoss: 0, finite: true };
      micro.forEach(disposeLmBatch);
      if (!finite || !criticFinite) {
        skipped += 1;
        continue;
      }
      updates += 1;
      sums.policyLoss += pg!;
      sums.clipFraction += clip!;
      sums.approxKl += approxKl!;
      sums.refKl += refKl!;
      sums.entropy += entropy!;
      sums.valueLoss += valueLoss;
    }
  }
  const n = Math.max(1, updates);
  return {
    policyLoss: sums.policyLoss / n,
    clipFraction: sums.clipFraction / n,
    approxKl: sums.approxKl / n,
    refKl: sums.refKl / n,
    entropy: sums.entropy / n,
    valueLoss: sums.valueLoss / n,
    updates,
    skipped,
  };
}

/**
 * Critic values at every sampled token of every turn (no gradient), for GAE.
 *
 * ```text
 * V_old[i][t][j] = V(context_t + sampled_t[< j])   (the value head at the position that predicts token j)
 * ```
 *
 * Source: MiniMind `train_ppo.py` (`values_seq.gather(1, logp_pos)`).
 *
 * @param critic The critic.
 * @param turns Per episode, per turn: `{context, sampled}`.
 * @param padId Padding id.
 * @returns Values per episode, turn and sampled token.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { modelPreset } from "../model/config.ts";
 * import { createModel } from "../model/params.ts";
 * import { criticValues } from "./policy_update.ts";
 *
 * const c = createModel(modelPreset("tiny", 12), { kind: "critic" });
 * const v = await criticValues(c, [[{ context: [1, 2], sampled: [3, 4] }]], 0);
 * assert.equal(v[0]![0]!.length, 2);
 * c.dispose();
 * ```
 */
export async function criticValues(
  critic: Model,
  turns: readonly (readonly { context: readonly number[]; sampled: readonly number[] }[])[],
  padId: number,
): Promise<number[][][]> {
  const flat = turns.flatMap((ts, i) => ts.map((t, k) => ({ i, k, t })));
  const out: number[][][] = turns.map((ts) => ts.map(() => []));
  for (let start = 0; start < flat.length; start += 16) {
    const chunk = flat.slice(start, start + 16);
    const L = Math.max(...chunk.map((c) => c.t.context.length + c.t.sampled.length));
    const tokens = tf.tensor2d(padTo(chunk.map((c) => [...c.t.context, ...c.t.sampled]), L, padId), undefined, "int32");
    const v = tf.tidy(() => valueHead(critic, forwardHidden(critic, tokens).hidden));
    const values = await v.data();
    tf.dispose([tokens, v]);
    chunk.forEach(({ i, k, t }, row) => {
      const first = t.context.length - 1;
      out[i]![k] = Array.from({ length: t.sampled.length }, (_, j) => values[row * L + first + j]!);
    });
  }
  return out;
}

/**
 * One critic update on a minibatch's micro-batches (PPO): the clipped value loss times `vfCoef`, its gradients
 * accumulated and clipped, applied when finite.
 */
async function criticStep(
  micro: readonly LmBatch[],
  critic: Model,
  criticOptimizer: AdamW,
  config: PolicyUpdateConfig,
  options: { batchNumTokens: number; lr: number | undefined },
): Promise<{ valueLoss: number; finite: boolean }> {
  const aggOptions = { batchNumTokens: options.batchNumTokens };
  const v = accumulateGradients(micro, trainableVariables(critic), (b: LmBatch) => {
    const values = valueHead(critic, forwardHidden(critic, b.tokens).hidden);
    const out = clippedValueLoss({
      values,
      oldValues: b.extras.oldValues!,
      returns: b.extras.returns!,
      mask: b.mask,
    }, { clipRange: config.valueClip, aggMode: "token-mean", aggOptions });
    return tf.mul(out.loss, config.vfCoef) as tf.Scalar;
  });
  const vc = clipByGlobalNorm(v.grads, config.maxGradNorm);
  const vr = tf.stack([v.value, vc.norm]);
  const [vl, vn] = Array.from(await vr.data());
  const finite = Number.isFinite(vl!) && Number.isFinite(vn!);
  if (finite) criticOptimizer.apply(vc.grads, options.lr);
  tf.dispose([vr, v.value, vc.norm, Object.values(v.grads), Object.values(vc.grads)]);
  return { valueLoss: vl! / Math.max(config.vfCoef, 1e-12), finite };
}
