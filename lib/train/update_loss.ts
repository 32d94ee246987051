/**
 * The loss of one micro-batch of the policy update (PPO-clip plus the reference KL) with its diagnostics, as
 * `policyUpdate` (./policy_update.ts) differentiates it.
 *
 * @module
 */
import { tf } from "../tf.ts";
import type { Model } from "../model/params.ts";
import { sequenceLogProbsAndEntropy } from "../model/score.ts";
import { ppoClipLoss } from "../loss/ppo_clip.ts";
import { type KlEstimator, klPenalty } from "../loss/kl.ts";
import { aggregateLoss } from "../tensor/aggregate_loss.ts";

/** The hyperparameters the micro-batch loss reads. */
export interface UpdateLossConfig {
  /** ε_low. */
  clipLow: number;
  /** ε_high. */
  clipHigh: number;
  /** β of the reference KL. */
  klCoef: number;
  /** KL estimator. */
  klEstimator: KlEstimator;
  /** Sampling temperature (log-probs are computed at the same temperature). */
  temperature: number;
}

/** A micro-batch of the update: inputs, targets, mask, and the old log-probs, advantages and reference log-probs. */
export interface UpdatePiece {
  /** Input ids `[B, L]`. */
  tokens: tf.Tensor2D;
  /** Next-token ids `[B, L]`. */
  targets: tf.Tensor2D;
  /** 1 where a token is learned. */
  mask: tf.Tensor2D;
  /** log π_old of each target. */
  oldLogProbs: tf.Tensor2D;
  /** Â of each target. */
  advantages: tf.Tensor2D;
  /** log π_ref of each target. */
  ref: tf.Tensor2D;
  /** Learned tokens of this piece (Σ mask). */
  numTokens: number;
}

/** The diagnostics summed over a minibatch's micro-batches, in this order. */
export const UPDATE_METRICS = ["pg", "clip", "approxKl", "refKl", "entropy"] as const;

/** One micro-batch's loss and its diagnostics (each already weighted to sum to the minibatch's). */
export interface UpdatePieceLoss {
  /** `pg + β · kl`, the scalar differentiated. */
  loss: tf.Scalar;
  /** By {@linkcode UPDATE_METRICS}: the PPO-clip loss, clipped share, k1 KL to π_old, reference KL, entropy. */
  metrics: Record<(typeof UPDATE_METRICS)[number], tf.Scalar>;
}

/**
 * The loss of one micro-batch of a minibatch of `N` learned tokens.
 *
 * ```text
 * pg  = Σ_tokens ppoClip(logπ, logπ_old, Â) / N          kl = Σ_tokens KL(logπ, logπ_ref) / N
 * loss = pg + β · kl;   clip, approxKl weighted by the piece's share of N; entropy = Σ_tokens H / N
 * ```
 *
 * Source: Schulman et al. 2017 (PPO-clip); Shao et al. 2024 Eq. 3 (GRPO's KL in the loss).
 * Reference: verl `dp_actor.update_policy` (micro-batches normalised by the minibatch's tokens).
 *
 * @param policy The policy (differentiated through by the caller's `variableGrads`).
 * @param piece The micro-batch.
 * @param config Clip range, β, estimator, temperature.
 * @param batchNumTokens N: learned tokens of the whole minibatch.
 * @returns The loss and the diagnostics (new tensors).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { tf } from "../tf.ts";
 * import { modelPreset } from "../model/config.ts";
 * import { createModel } from "../model/params.ts";
 * import { sequenceLogProbs } from "../model/score.ts";
 * import { updatePieceLoss } from "./update_loss.ts";
 *
 * const policy = createModel(modelPreset("tiny", 12), { seed: 1 });
 * const tokens = tf.tensor2d([[1, 2, 3]], undefined, "int32");
 * const targets = tf.tensor2d([[2, 3, 4]], undefined, "int32");
 * const ref = sequenceLogProbs(policy, tokens, targets);
 * const piece = { tokens, targets, mask: tf.ones([1, 3]) as tf.Tensor2D, oldLogProbs: ref, advantages: tf.ones([1, 3]) as tf.Tensor2D, ref, numTokens: 3 };
 * const config = { clipLow: 0.2, clipHigh: 0.2, klCoef: 0.001, klEstimator: "low_var_kl" as const, temperature: 1 };
 * const { loss, metrics } = updatePieceLoss(policy, piece, config, 3);
 * // at π = π_old = π_ref with Â = 1 everywhere: pg = −1, nothing clipped, no KL
 * assert.ok(Math.abs(loss.dataSync()[0]! + 1) < 1e-6);
 * assert.equal(metrics.clip.dataSync()[0], 0);
 * policy.dispose();
 * ```
 */
export function updatePieceLoss(
  policy: Model,
  piece: UpdatePiece,
  config: UpdateLossConfig,
  batchNumTokens: number,
): UpdatePieceLoss {
  const aggOptions = { batchNumTokens };
  const { logProbs, entropy } = sequenceLogProbsAndEntropy(policy, piece.tokens, piece.targets, config.temperature);
  const share = piece.numTokens / batchNumTokens;
  const pg = ppoClipLoss({
    logProbs,
    oldLogProbs: piece.oldLogProbs,
    advantages: piece.advantages,
    mask: piece.mask,
  }, { clipLow: config.clipLow, clipHigh: config.clipHigh, aggMode: "token-mean", aggOptions });
  const kl = aggregateLoss(
    klPenalty(logProbs, piece.ref, { estimator: config.klEstimator }),
    piece.mask,
    "token-mean",
    aggOptions,
  );
  return {
    loss: tf.add(pg.loss, tf.mul(kl, config.klCoef)) as tf.Scalar,
    metrics: {
      pg: pg.loss,
      clip: tf.mul(pg.clipFraction, share) as tf.Scalar,
      approxKl: tf.mul(pg.approxKl, share) as tf.Scalar,
      refKl: kl,
      entropy: aggregateLoss(entropy, piece.mask, "token-mean", aggOptions),
    },
  };
}
