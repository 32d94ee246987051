/**
 * The decoder's weights: creation (seeded), frozen copies and disposal. The
 * only place that creates `tf.Variable`s.
 *
 * @module
 */
import { tf } from "../tf.ts";
import { createRng } from "../random.ts";
import { type ModelConfig, validateModelConfig } from "./config.ts";

/** `policy` = language model; `critic` = same trunk plus a scalar value head. */
export type ModelKind = "policy" | "critic";

/** A model's weights and fixed tables; `dispose()` frees all of them. */
export interface Model {
  /** The architecture. */
  readonly config: ModelConfig;
  /** Policy or critic. */
  readonly kind: ModelKind;
  /** Unique instance id; prefixes every variable name (tfjs names are global). */
  readonly id: string;
  /** Weights by canonical (MiniMind/Hugging Face) name; linear weights stored `[in, out]`. */
  readonly weights: Map<string, tf.Variable>;
  /** Whether the weights are trainable. */
  readonly trainable: boolean;
  /** RoPE cos table `[maxPositions, headDim]` (each frequency twice, interleaved pairs). */
  readonly ropeCos: tf.Tensor2D;
  /** RoPE sin table `[maxPositions, headDim]`. */
  readonly ropeSin: tf.Tensor2D;
  /** The pair rotation `R` `[headDim, headDim]`: (x₀, x₁) ↦ (−x₁, x₀). */
  readonly ropeRotation: tf.Tensor2D;
  /** Frees every tensor of the model. */
  dispose(): void;
}

/** Options of {@linkcode createModel}. */
export interface CreateModelOptions {
  /** Seed of the initialisation. @default 0 */
  seed?: number;
  /** Policy or critic. @default "policy" */
  kind?: ModelKind;
  /** Trainable variables (a frozen reference uses `false`). @default true */
  trainable?: boolean;
  /** Human prefix of the instance id. @default kind */
  name?: string;
}

let instances = 0;

/**
 * Canonical weight names (MiniMind / Hugging Face) and shapes, `[in, out]`
 * for linear layers, in checkpoint order.
 *
 * Source: MiniMind `MiniMindForCausalLM.state_dict()` names (tied `lm_head` omitted).
 *
 * @param config The architecture.
 * @param kind Policy or critic (adds `value_head.weight`, `value_head.bias`).
 * @returns `[name, shape]` pairs.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { modelPreset } from "./config.ts";
 * import { weightShapes } from "./params.ts";
 *
 * assert.deepEqual(weightShapes(modelPreset("tiny", 20), "policy")[0], ["model.embed_tokens.weight", [20, 32]]);
 * ```
 */
export function weightShapes(config: ModelConfig, kind: ModelKind): [string, number[]][] {
  const { vocabSize: V, dModel: D, nLayers: L, ffnHidden: F } = config;
  const out: [string, number[]][] = [["model.embed_tokens.weight", [V, D]]];
  for (let i = 0; i < L; i++) {
    const p = `model.layers.${i}`;
    out.push(
      [`${p}.input_layernorm.weight`, [D]],
      [`${p}.self_attn.q_proj.weight`, [D, D]],
      [`${p}.self_attn.k_proj.weight`, [D, D]],
      [`${p}.self_attn.v_proj.weight`, [D, D]],
      [`${p}.self_attn.o_proj.weight`, [D, D]],
      [`${p}.post_attention_layernorm.weight`, [D]],
      [`${p}.mlp.gate_proj.weight`, [D, F]],
      [`${p}.mlp.up_proj.weight`, [D, F]],
      [`${p}.mlp.down_proj.weight`, [F, D]],
    );
  }
  out.push(["model.norm.weight", [D]]);
  if (kind === "critic") out.push(["value_head.weight", [D, 1]], ["value_head.bias", [1]]);
  return out;
}

function ropeTables(config: ModelConfig): { cos: tf.Tensor2D; sin: tf.Tensor2D; rotation: tf.Tensor2D } {
  const hd = config.dModel / config.nHeads;
  const P = config.maxPositions;
  const cos = new Float32Array(P * hd);
  const sin = new Float32Array(P * hd);
  for (let p = 0; p < P; p++) {
    for (let i = 0; i < hd / 2; i++) {
      const inv = 1 / config.ropeTheta ** ((2 * i) / hd);
      const a = p * inv;
      cos[p * hd + 2 * i] = cos[p * hd + 2 * i + 1] = Math.cos(a);
      sin[p * hd + 2 * i] = sin[p * hd + 2 * i + 1] = Math.sin(a);
    }
  }
  const rot = new Float32Array(hd * hd);
  for (let i = 0; i < hd / 2; i++) {
    rot[(2 * i + 1) * hd + 2 * i] = -1; // out[2i]   = −x[2i+1]
    rot[(2 * i) * hd + 2 * i + 1] = 1; //  out[2i+1] =  x[2i]
  }
  return { cos: tf.tensor2d(cos, [P, hd]), sin: tf.tensor2d(sin, [P, hd]), rotation: tf.tensor2d(rot, [hd, hd]) };
}

function initialValues(name: string, shape: number[], config: ModelConfig, rng: ReturnType<typeof createRng>) {
  const size = shape.reduce((a, b) => a * b, 1);
  const values = new Float32Array(size);
  if (name.endsWith("norm.weight")) values.fill(1);
  else if (name === "value_head.bias") values.fill(0);
  else {
    // GPT-2 init: N(0, 0.02); residual output projections scaled by 1/√(2L)
    const residual = name.endsWith("o_proj.weight") || name.endsWith("down_proj.weight");
    const std = residual ? 0.02 / Math.sqrt(2 * config.nLayers) : 0.02;
    for (let i = 0; i < size; i++) values[i] = std * rng.normal();
  }
  return values;
}

function assemble(
  config: ModelConfig,
  kind: ModelKind,
  trainable: boolean,
  name: string,
  values: (weightName: string, shape: number[]) => tf.Tensor,
): Model {
  validateModelConfig(config);
  const id = `${name}_${instances++}`;
  const weights = new Map<string, tf.Variable>();
  for (const [w, shape] of weightShapes(config, kind)) {
    const init = values(w, shape);
    weights.set(w, tf.variable(init, trainable, `${id}/${w}`));
    init.dispose();
  }
  const { cos, sin, rotation } = ropeTables(config);
  return {
    config,
    kind,
    id,
    weights,
    trainable,
    ropeCos: cos,
    ropeSin: sin,
    ropeRotation: rotation,
    dispose() {
      for (const v of weights.values()) v.dispose();
      weights.clear();
      tf.dispose([cos, sin, rotation]);
    },
  };
}

/**
 * Creates a decoder (or critic) with seeded GPT-2-style initial weights.
 *
 * ```text
 * W ~ N(0, 0.02²);  o_proj, down_proj ~ N(0, (0.02/√(2L))²);  norms = 1;  value bias = 0
 * ```
 *
 * Every instance gets a unique id, so any number of policies, critics and
 * frozen references coexist and a notebook cell can rebuild a model.
 *
 * Source: Radford et al. 2019 (GPT-2) §2.3 initialisation; MiniMind `MiniMindForCausalLM`
 * (tied embeddings, no biases); MiniMind `CriticModel` (value head with bias).
 *
 * @param config The architecture.
 * @param options Seed, kind, trainability, name.
 * @returns A new model; call `dispose()` when done.
 *
 * @example Two instances with the same seed have equal weights and distinct names
 * ```ts
 * import assert from "node:assert/strict";
 * import { modelPreset } from "./config.ts";
 * import { createModel } from "./params.ts";
 *
 * const a = createModel(modelPreset("tiny", 20), { seed: 1 });
 * const b = createModel(modelPreset("tiny", 20), { seed: 1 });
 * assert.notEqual(a.id, b.id);
 * assert.deepEqual(a.weights.get("model.norm.weight")!.arraySync(), b.weights.get("model.norm.weight")!.arraySync());
 * a.dispose();
 * b.dispose();
 * ```
 */
export function createModel(config: ModelConfig, options: CreateModelOptions = {}): Model {
  const { seed = 0, kind = "policy", trainable = true, name = kind } = options;
  const rng = createRng(seed);
  return assemble(config, kind, trainable, name, (w, shape) => tf.tensor(initialValues(w, shape, config, rng), shape));
}

/**
 * A copy of a model's weights as a new instance (the frozen reference model).
 *
 * Source: Ouyang et al. 2022 (arXiv:2203.02155) §3.5 — the KL penalty's
 * reference is the frozen SFT model.
 *
 * @param model The model to copy.
 * @param options `trainable` (default `false`) and `name` (default `ref`).
 * @returns A new model with equal weights.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { modelPreset } from "./config.ts";
 * import { copyModel, createModel } from "./params.ts";
 *
 * const policy = createModel(modelPreset("tiny", 20));
 * const ref = copyModel(policy);
 * assert.equal(ref.trainable, false);
 * policy.dispose();
 * ref.dispose();
 * ```
 */
export function copyModel(model: Model, options: { trainable?: boolean; name?: string } = {}): Model {
  const { trainable = false, name = "ref" } = options;
  return assemble(model.config, model.kind, trainable, name, (w) => tf.clone(model.weights.get(w)!));
}

/**
 * Copies weights from `src` into `dst` in place (same architecture).
 *
 * Source: PPO's θ_old ← θ (Schulman et al. 2017, Algorithm 1).
 *
 * @param dst Model whose variables are overwritten.
 * @param src Model to read.
 * @returns Nothing.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { modelPreset } from "./config.ts";
 * import { assignWeights, createModel } from "./params.ts";
 *
 * const a = createModel(modelPreset("tiny", 20), { seed: 1 });
 * const b = createModel(modelPreset("tiny", 20), { seed: 2 });
 * assignWeights(b, a);
 * const w = "model.embed_tokens.weight";
 * assert.deepEqual(b.weights.get(w)!.arraySync(), a.weights.get(w)!.arraySync());
 * a.dispose();
 * b.dispose();
 * ```
 */
export function assignWeights(dst: Model, src: Model): void {
  for (const [name, v] of dst.weights) {
    const s = src.weights.get(name);
    if (s === undefined || s.shape.join() !== v.shape.join()) {
      throw new TypeError(`Cannot assign weights: ${name} is missing or has another shape in the source model`);
    }
    v.assign(s);
  }
}

/**
 * Sets a model's trainable variables from arrays in `trainableVariables`
 * order (the weights a worker receives). `assign` shares the new tensor's
 * data, so the tidy disposes only the wrapper: one copy stays, the variable's.
 *
 * Source: this package (the gradient and eval workers' weight load).
 *
 * @param model Model whose trainable variables are overwritten.
 * @param weights One array per trainable variable, in order.
 * @returns Nothing.
 *
 * @example Loading weights twice leaves no tensor behind
 * ```ts
 * import assert from "node:assert/strict";
 * import { tf } from "../tf.ts";
 * import { modelPreset } from "./config.ts";
 * import { createModel, setTrainableWeights, trainableVariables } from "./params.ts";
 *
 * const a = createModel(modelPreset("tiny", 20), { seed: 1 });
 * const b = createModel(modelPreset("tiny", 20), { seed: 2 });
 * const arrays = trainableVariables(a).map((v) => v.dataSync() as Float32Array);
 * const before = tf.memory().numTensors;
 * setTrainableWeights(b, arrays);
 * setTrainableWeights(b, arrays);
 * assert.equal(tf.memory().numTensors, before);
 * assert.deepEqual(trainableVariables(b)[0]!.dataSync(), arrays[0]);
 * a.dispose();
 * b.dispose();
 * ```
 */
export function setTrainableWeights(model: Model, weights: readonly Float32Array[]): void {
  tf.tidy(() => trainableVariables(model).forEach((v, i) => v.assign(tf.tensor(weights[i]!, v.shape, "float32"))));
}

/**
 * The trainable variables of a model, for an explicit `varList`.
 *
 * Source: TF.js `tf.variableGrads(f, varList)` (never the implicit global list).
 *
 * @param model The model.
 * @returns Its variables in checkpoint order.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { modelPreset } from "./config.ts";
 * import { createModel, trainableVariables } from "./params.ts";
 *
 * const m = createModel(modelPreset("tiny", 20));
 * assert.equal(trainableVariables(m).length, 1 + 2 * 9 + 1);
 * m.dispose();
 * ```
 */
export function trainableVariables(model: Model): tf.Variable[] {
  return [...model.weights.values()];
}
