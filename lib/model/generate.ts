/**
 * Batched sampling with a KV cache: all rows advance together, only the
 * sampled ids (and their log-probs) cross to the host, once per step.
 *
 * @module
 */
import { tf } from "../tf.ts";
import { hashSeed } from "../random.ts";
import type { Model } from "./params.ts";
import {
  disposeFusedWeights,
  forwardHidden,
  fuseWeights,
  type KvCache,
  outputLogits,
  outputProjection,
} from "./transformer.ts";

/** Options of {@linkcode generate}. */
export interface GenerateOptions {
  /** Tokens to sample per row at most. */
  maxNewTokens: number;
  /** Softmax temperature; 0 = greedy. @default 1 */
  temperature?: number;
  /** Nucleus sampling: keep the smallest set of tokens with mass ≥ topP. @default 1 */
  topP?: number;
  /** Ids that end a row (closing tags); the stop id is kept. @default [] */
  stopIds?: readonly number[];
  /** Seed; step k samples with `hashSeed(seed, k)`. @default 0 */
  seed?: number;
  /** Id written after a row has finished. */
  padId: number;
}

/** Result of {@linkcode generate}, one entry per prompt. */
export interface GenerateResult {
  /** Sampled ids (up to and including a stop id), no padding. */
  tokens: number[][];
  /** log π(token | prefix) of each sampled id under softmax(logits / temperature) (greedy: temperature 1). */
  logProbs: number[][];
  /** Whether the row ended on a stop id (false: it hit maxNewTokens). */
  stopped: boolean[];
}

const NEG = -1e9;

/** Samples one id per row on the device; returns `[B, 2]` = (id, log-prob). */
function sampleStep(logits: tf.Tensor2D, temperature: number, topP: number, seed: number): tf.Tensor2D {
  return tf.tidy(() => {
    const [B, V] = logits.shape;
    const rowBase = tf.mul(tf.range(0, B, 1, "int32"), tf.scalar(V, "int32"));
    const pick = (source: tf.Tensor2D, ids: tf.Tensor1D) =>
      tf.gather(tf.reshape(source, [B * V]), tf.add(rowBase, ids)) as tf.Tensor1D;
    let ids: tf.Tensor1D;
    let logp: tf.Tensor2D;
    if (temperature === 0) {
      logp = tf.logSoftmax(logits);
      ids = tf.cast(tf.argMax(logits, 1), "int32") as tf.Tensor1D;
    } else {
      logp = tf.logSoftmax(tf.div(logits, temperature));
      if (topP >= 1) {
        ids = tf.cast(tf.reshape(tf.multinomial(logp, 1, seed, false), [B]), "int32") as tf.Tensor1D;
      } else {
        const { values, indices } = tf.topk(logp, V, true); // sorted descending
        const cum = tf.cumsum(tf.exp(values), 1);
        const keep = tf.less(tf.sub(cum, tf.exp(values)), topP); // mass before this token < p
        const masked = tf.where(keep, values, tf.fill([B, V], NEG)) as tf.Tensor2D;
        const j = tf.cast(tf.reshape(tf.multinomial(masked, 1, seed, false), [B]), "int32") as tf.Tensor1D;
        ids = pick(tf.cast(indices, "float32") as tf.Tensor2D, j).toInt() as tf.Tensor1D;
      }
    }
    const chosen = pick(logp, ids);
    return tf.stack([tf.cast(ids, "float32"), chosen], 1) as tf.Tensor2D;
  });
}

/**
 * Samples continuations of a batch of prompts (left-padded, per-row
 * positions), stopping each row at a stop id or after `maxNewTokens`.
 *
 * ```text
 * prefill:  run the prompts once, keep K/V of every layer
 * step k:   a_k ~ softmax(logits_k / temperature) (∩ top-p), record log π(a_k)
 *           run a_k alone against the cache (one token per row)
 * ```
 *
 * Shapes: `prompts [B][P_b]` → `tokens`, `logProbs` `[B][≤ maxNewTokens]`.
 *
 * Source: Holtzman et al. 2020 (nucleus sampling, arXiv:1904.09751) §3.1;
 * KV caching as in Pope et al. 2022 (arXiv:2211.05102).
 * Reference: MiniMind `rollout_engine.py` (per-token logps recorded while sampling).
 *
 * @param model A policy model.
 * @param prompts Token ids of each prompt (≥ 1 token each).
 * @param options Limits, temperature, top-p, stop ids, seed.
 * @returns Sampled ids and their log-probs (old log-probs for PPO).
 *
 * @example Greedy decoding is deterministic
 * ```ts
 * import assert from "node:assert/strict";
 * import { modelPreset } from "./config.ts";
 * import { createModel } from "./params.ts";
 * import { generate } from "./generate.ts";
 *
 * const m = createModel(modelPreset("tiny", 20), { seed: 3 });
 * const a = await generate(m, [[1, 2, 3], [4]], { maxNewTokens: 4, temperature: 0, padId: 0 });
 * const b = await generate(m, [[1, 2, 3], [4]], { maxNewTokens: 4, temperature: 0, padId: 0 });
 * assert.deepEqual(a.tokens, b.tokens);
 * assert.equal(a.tokens[1]!.length, 4);
 * m.dispose();
 * ```
 */
export async function generate(
  model: Model,
  prompts: readonly (readonly number[])[],
  options: GenerateOptions,
): Promise<GenerateResult> {
  const { maxNewTokens, temperature = 1, topP = 1, stopIds = [], seed = 0, padId } = options;
  if (!Number.isInteger(maxNewTokens) || maxNewTokens < 0) {
    throw new RangeError(`Cannot generate: maxNewTokens must be an integer ≥ 0, current value is ${maxNewTokens}`);
  }
  if (!(temperature >= 0) || !(topP > 0 && topP <= 1)) {
    throw new RangeError(
      `Cannot generate: need temperature ≥ 0 and 0 < topP ≤ 1, current values are ${temperature} and ${topP}`,
    );
  }
  const B = prompts.length;
  const tokens: number[][] = prompts.map(() => []);
  const logProbs: number[][] = prompts.map(() => []);
  const stopped = prompts.map(() => false);
  if (B === 0 || maxNewTokens === 0) return { tokens, logProbs, stopped };
  prompts.forEach((p, b) => {
    if (p.length === 0) throw new RangeError(`Cannot generate: prompts[${b}] is empty`);
  });
  const P = Math.max(...prompts.map((p) => p.length));
  if (P + maxNewTokens > model.config.maxPositions) {
    throw new RangeError(
      `Cannot generate: prompt length ${P} + maxNewTokens ${maxNewTokens} exceeds maxPositions ${model.config.maxPositions}`,
    );
  }
  const pads = prompts.map((p) => P - p.length);
  const stop = new Set(stopIds);
  const done = prompts.map(() => false);
  const { V } = { V: model.config.vocabSize };

  // prefill: left-padded prompts, positions start at 0 on each row's first real token
  const bias = new Float32Array(B * P * P);
  for (let b = 0; b < B; b++) {
    for (let t = 0; t < P; t++) for (let s = 0; s < P; s++) if (s > t || s < pads[b]!) bias[(b * P + t) * P + s] = NEG;
  }
  // every tensor below is freed in the finally, whatever throws (the inputs of each forward right after it)
  const fused = fuseWeights(model); // the q|k|v and gate|up concatenations once per call
  let projection: tf.Tensor2D | undefined;
  let hidden: tf.Tensor3D | undefined;
  let cache: KvCache | undefined;
  let last: tf.Tensor | undefined;
  try {
    const input = tf.tensor2d(prompts.map((p, b) => [...new Array(pads[b]).fill(padId), ...p]), [B, P], "int32");
    const positions = tf.tensor2d(
      prompts.map((_, b) => Array.from({ length: P }, (_, t) => Math.max(0, t - pads[b]!))),
      [B, P],
      "int32",
    );
    const biasT = tf.tensor4d(bias, [B, 1, P, P]);
    try {
      ({ hidden, cache } = forwardHidden(model, input, {
        positions,
        attentionBias: biasT,
        returnCache: true,
        fused,
      }) as { hidden: tf.Tensor3D; cache: KvCache });
    } finally {
      tf.dispose([input, positions, biasT]);
    }
    projection = outputProjection(model); // Eᵀ once per call, not once per token
    const prefill = hidden;
    last = tf.tidy(() =>
      tf.reshape(outputLogits(model, tf.slice(prefill, [0, P - 1, 0], [B, 1, -1]), projection), [B, V])
    );
    hidden.dispose();
    for (let k = 0; k < maxNewTokens; k++) {
      const sample = sampleStep(last as tf.Tensor2D, temperature, topP, hashSeed(seed, k));
      last.dispose();
      let values: ArrayLike<number>;
      try {
        values = await sample.data(); // the one host read per step: [B, 2] ids and log-probs
      } finally {
        sample.dispose();
      }
      const next: number[] = [];
      for (let b = 0; b < B; b++) {
        if (done[b]) {
          next.push(padId);
          continue;
        }
        const id = Math.round(values[2 * b]!);
        tokens[b]!.push(id);
        logProbs[b]!.push(values[2 * b + 1]!);
        if (stop.has(id)) {
          done[b] = true;
          stopped[b] = true;
        } else if (tokens[b]!.length >= maxNewTokens) done[b] = true;
        next.push(id);
      }
      if (done.every((d) => d)) break;
      // one new token per row, attending to the whole cache minus each row's padding
      const S = P + k + 1;
      const stepBias = new Float32Array(B * S);
      for (let b = 0; b < B; b++) for (let s = 0; s < pads[b]!; s++) stepBias[b * S + s] = NEG;
      const stepInput = tf.tensor2d(next, [B, 1], "int32");
      const stepPos = tf.tensor2d(prompts.map((p) => [p.length + k]), [B, 1], "int32");
      const stepBiasT = tf.tensor4d(stepBias, [B, 1, 1, S]);
      let out: { hidden: tf.Tensor3D; cache: KvCache };
      try {
        out = forwardHidden(model, stepInput, {
          positions: stepPos,
          attentionBias: stepBiasT,
          cache,
          returnCache: true,
          fused,
        }) as { hidden: tf.Tensor3D; cache: KvCache };
      } finally {
        tf.dispose([stepInput, stepPos, stepBiasT]);
      }
      tf.dispose([cache.keys, cache.values]);
      cache = out.cache;
      hidden = out.hidden;
      last = tf.tidy(() => tf.reshape(outputLogits(model, out.hidden, projection), [B, V]));
      out.hidden.dispose();
    }
  } finally {
    if (cache !== undefined) tf.dispose([cache.keys, cache.values]);
    projection?.dispose();
    disposeFusedWeights(fused);
    if (hidden !== undefined && !hidden.isDisposed) hidden.dispose();
    if (last !== undefined && !last.isDisposed) last.dispose();
  }
  return { tokens, logProbs, stopped };
}
