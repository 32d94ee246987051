/**
 * The policy model's architecture (MiniMind-style decoder) and its presets.
 *
 * @module
 */

/** Architecture of the decoder; every field is part of a checkpoint's identity. */
export interface ModelConfig {
  /** V, vocabulary size (from the tokenizer). */
  vocabSize: number;
  /** D, model width. */
  dModel: number;
  /** L, transformer blocks. */
  nLayers: number;
  /** H, attention heads; D must be divisible by H and D/H even (RoPE pairs). */
  nHeads: number;
  /** SwiGLU hidden width. */
  ffnHidden: number;
  /** Size of the RoPE table: the longest context the model can see. */
  maxPositions: number;
  /** RoPE base θ. @default 10000 */
  ropeTheta: number;
  /** RMSNorm ε. @default 1e-6 */
  normEps: number;
}

/** Preset names of {@linkcode modelPreset}. */
export type ModelPresetName = "tiny" | "small" | "base" | "bench";

const PRESETS: Record<ModelPresetName, Omit<ModelConfig, "vocabSize">> = {
  // tests: seconds
  tiny: { dModel: 32, nLayers: 2, nHeads: 2, ffnHidden: 64, maxPositions: 512, ropeTheta: 10000, normEps: 1e-6 },
  // default training
  small: { dModel: 128, nLayers: 4, nHeads: 4, ffnHidden: 384, maxPositions: 2048, ropeTheta: 10000, normEps: 1e-6 },
  // for GPUs
  base: { dModel: 512, nLayers: 8, nHeads: 8, ffnHidden: 1408, maxPositions: 4096, ropeTheta: 10000, normEps: 1e-6 },
  // deno task bench's model (with vocabSize 512): 918,656 parameters, as bench/torch_ref.py's
  bench: { dModel: 128, nLayers: 4, nHeads: 4, ffnHidden: 384, maxPositions: 1024, ropeTheta: 10000, normEps: 1e-6 },
};

/**
 * A preset architecture for a given vocabulary size.
 *
 * ```text
 * tiny   D 32,  L 2, H 2, ffn 64,   positions 512
 * small  D 128, L 4, H 4, ffn 384,  positions 2048   (default training)
 * base   D 512, L 8, H 8, ffn 1408, positions 4096   (GPUs)
 * bench  D 128, L 4, H 4, ffn 384,  positions 1024   (deno task bench)
 * ```
 *
 * Source: MiniMind `MiniMindConfig` (scaled down); bench/bench.ts for `bench`.
 *
 * @param name The preset.
 * @param vocabSize V, from the tokenizer.
 * @returns A new, validated config.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { modelPreset } from "./config.ts";
 *
 * assert.equal(modelPreset("bench", 512).dModel, 128);
 * ```
 */
export function modelPreset(name: ModelPresetName, vocabSize: number): ModelConfig {
  const p = PRESETS[name];
  if (p === undefined) {
    throw new RangeError(
      `Cannot build model preset: name must be one of ${Object.keys(PRESETS).join(", ")}, current value is ${
        JSON.stringify(name)
      }`,
    );
  }
  return validateModelConfig({ ...p, vocabSize });
}

/**
 * Checks a config and returns it, or throws a `RangeError` naming the field.
 *
 * Source: house style (validate at the boundary, std-style messages).
 *
 * @param config The config to check.
 * @returns The same config.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { modelPreset, validateModelConfig } from "./config.ts";
 *
 * assert.throws(() => validateModelConfig({ ...modelPreset("tiny", 10), nHeads: 3 }), /dModel \(32\) must be divisible by nHeads/);
 * ```
 */
export function validateModelConfig(config: ModelConfig): ModelConfig {
  for (const k of ["vocabSize", "dModel", "nLayers", "nHeads", "ffnHidden", "maxPositions"] as const) {
    const v = config[k];
    if (!Number.isInteger(v) || v < 1) {
      throw new RangeError(`Invalid model config: ${k} must be a positive integer, current value is ${v}`);
    }
  }
  if (config.dModel % config.nHeads !== 0 || (config.dModel / config.nHeads) % 2 !== 0) {
    throw new RangeError(
      `Invalid model config: dModel (${config.dModel}) must be divisible by nHeads (${config.nHeads}) with an even head size`,
    );
  }
  if (!(config.ropeTheta > 1) || !(config.normEps > 0)) {
    throw new RangeError(
      `Invalid model config: ropeTheta must be > 1 and normEps > 0, current values are ${config.ropeTheta} and ${config.normEps}`,
    );
  }
  return config;
}

/**
 * Number of trainable parameters of the decoder (tied embeddings counted once).
 *
 * ```text
 * V·D + L·(4·D² + 3·D·F + 2·D) + D
 * ```
 *
 * Source: this package (918,656 for the bench preset with V = 512, the count bench/torch_ref.py's PyTorch model
 * has: tests/bench/torch_ref_test.ts).
 *
 * @param config The architecture.
 * @returns The parameter count.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { countParameters, modelPreset } from "./config.ts";
 *
 * assert.equal(countParameters(modelPreset("bench", 512)), 918656);
 * ```
 */
export function countParameters(config: ModelConfig): number {
  const { vocabSize: V, dModel: D, nLayers: L, ffnHidden: F } = config;
  return V * D + L * (4 * D * D + 3 * D * F + 2 * D) + D;
}

/**
 * FLOPs of the matrix products of one forward pass over `batch` rows of
 * `length` tokens, as this package computes them (attention as full
 * `T × T` products under an additive causal mask):
 *
 * ```text
 * per token: 2·L·(4D² + 3·D·F)   (q, k, v, o; gate, up, down)
 *          + 2·L·2·T·D           (QKᵀ and AV against the T positions)
 *          + 2·D·V               (the tied output projection)
 * ```
 *
 * A training step's products are 3× the forward's (the backward pass forms
 * two products per forward product: the input's and the weight's gradient).
 * RoPE is elementwise (one kernel on wasm; other backends form it with a
 * small rotation product, not counted).
 *
 * Source: Kaplan et al. 2020 (arXiv:2001.08361) §2.1, C_forward ≈ 2N + 2·L·T·D per token; the 3× rule for training.
 *
 * @param config The architecture.
 * @param batch Rows.
 * @param length Tokens per row (T).
 * @returns Floating-point operations (multiply and add counted apart).
 *
 * @example The benchmark's train step: 14.5 GFLOP of matrix products
 * ```ts
 * import assert from "node:assert/strict";
 * import { forwardMatmulFlops, modelPreset } from "./config.ts";
 *
 * const flops = 3 * forwardMatmulFlops(modelPreset("bench", 512), 8, 256);
 * assert.equal(flops, 14_495_514_624);
 * ```
 */
export function forwardMatmulFlops(config: ModelConfig, batch: number, length: number): number {
  const { vocabSize: V, dModel: D, nLayers: L, ffnHidden: F } = config;
  const perToken = 2 * L * (4 * D * D + 3 * D * F) + 2 * L * 2 * length * D + 2 * D * V;
  return batch * length * perToken;
}
