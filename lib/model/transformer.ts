/**
 * The decoder's forward pass: pre-norm RMSNorm, RoPE, causal multi-head
 * attention, SwiGLU, tied embeddings, no biases (MiniMind), with an optional
 * KV cache for generation and per-row positions for left-padded batches.
 *
 * @module
 */
import { tf } from "../tf.ts";
import { QKV_HEADS_KERNEL, RMS_NORM_KERNEL, ROPE_KERNEL } from "../wasm/wasm_kernels.ts";
import { bmm, bmmTransposed, dense } from "./dense.ts";
import type { Model } from "./params.ts";

/** Past keys and values of every layer, `[B, H, S, headDim]` each; owned by whoever holds it. */
export interface KvCache {
  /** Keys per layer. */
  keys: tf.Tensor4D[];
  /** Values per layer. */
  values: tf.Tensor4D[];
}

/** Options of {@linkcode forwardHidden}. */
export interface ForwardOptions {
  /** Position ids `[B, T]` int32 (left padding); default `past + 0 … past + T − 1` for every row. */
  positions?: tf.Tensor2D;
  /** Additive attention bias (0 or −1e9), `[B, 1, T, S]` or `[T, S]`; default causal over `S = past + T`. */
  attentionBias?: tf.Tensor;
  /** Keys/values of earlier tokens; the result's `cache` appends this call's. */
  cache?: KvCache;
  /** Return the extended cache. @default false */
  returnCache?: boolean;
  /**
   * Concatenated projection weights ({@linkcode fuseWeights}) for a pass without gradients: one product for q, k
   * and v and one for gate and up instead of five, and on wasm RMSNorm as one kernel (the same values, bit for
   * bit; fewer kernels per decoded token). No gradient flows through such a pass.
   */
  fused?: FusedWeights;
}

/** Per layer, `[W_q | W_k | W_v]` `[D, 3D]` and `[W_gate | W_up]` `[D, 2F]`; owned by the caller. */
export interface FusedWeights {
  /** `[D, 3D]` per layer. */
  qkv: tf.Tensor2D[];
  /** `[D, 2F]` per layer. */
  gateUp: tf.Tensor2D[];
}

/** Result of {@linkcode forwardHidden}; new tensors owned by the caller. */
export interface ForwardResult {
  /** Final-normed hidden states `[B, T, D]`. */
  hidden: tf.Tensor3D;
  /** The extended cache (when `returnCache`). */
  cache?: KvCache;
}

const NEG = -1e9;

/**
 * The causal additive bias `[T, S]`: query t (at absolute position past + t)
 * sees keys 0 … past + t.
 *
 * ```text
 * bias[t][s] = 0 if s ≤ past + t else −1e9
 * ```
 *
 * Source: Vaswani et al. 2017 (arXiv:1706.03762) §3.2.3, masked attention.
 *
 * @param T Query tokens.
 * @param past Cached tokens before them.
 * @returns A new `[T, past + T]` tensor (built on the host: no `bandPart`/`Tile`).
 *
 * @example
 * ```ts
 * import { assertAllClose } from "../testing/all_close.ts";
 * import { causalBias } from "./transformer.ts";
 *
 * assertAllClose(causalBias(2, 1), [[0, 0, -1e9], [0, 0, 0]]);
 * ```
 */
export function causalBias(T: number, past = 0): tf.Tensor2D {
  const S = past + T;
  const v = new Float32Array(T * S);
  for (let t = 0; t < T; t++) for (let s = past + t + 1; s < S; s++) v[t * S + s] = NEG;
  return tf.tensor2d(v, [T, S]);
}

function rmsNorm(x: tf.Tensor, weight: tf.Tensor, eps: number, noGradient = false): tf.Tensor {
  // wasm, no gradient (decoding, scoring): one kernel, the same float32 values
  if (noGradient && tf.getBackend() === "wasm") return tf.engine().runKernel(RMS_NORM_KERNEL, { x, weight }, { eps });
  const inv = tf.rsqrt(tf.add(tf.mean(tf.square(x), -1, true), eps));
  return tf.mul(tf.mul(x, inv), weight);
}

/** x ⊙ cos + (x R) ⊙ sin over the last axis (interleaved pairs); `x [B, H, T, hd]`. */
function rope(x: tf.Tensor4D, cos: tf.Tensor, sin: tf.Tensor, rotation: tf.Tensor2D): tf.Tensor4D {
  if (tf.getBackend() === "wasm") return fusedRope(x, cos, sin, rotation) as tf.Tensor4D;
  return tf.add(tf.mul(x, cos), tf.mul(dense(x, rotation), sin)) as tf.Tensor4D;
}

// wasm: one kernel for the forward (the same float32 values as the three ops above); the gradient
// dx = dy ⊙ cos + (dy ⊙ sin) Rᵀ, as the ops above would give it
const fusedRope = tf.customGrad(
  ((x: tf.Tensor4D, cos: tf.Tensor, sin: tf.Tensor, rotation: tf.Tensor2D, save: tf.GradSaveFunc) => {
    save([cos, sin, rotation]);
    return {
      value: tf.engine().runKernel(ROPE_KERNEL, { x, cos, sin }) as tf.Tensor4D,
      gradFunc: (dy: tf.Tensor4D, saved: tf.Tensor[]) => {
        const [c, s, r] = saved as [tf.Tensor, tf.Tensor, tf.Tensor2D];
        return [
          tf.add(tf.mul(dy, c), dense(tf.mul(dy, s), tf.transpose(r))),
          tf.zerosLike(c),
          tf.zerosLike(s),
          tf.zerosLike(r),
        ];
      },
    };
  }) as unknown as Parameters<typeof tf.customGrad>[0],
);

/**
 * softmax(q kᵀ · scale + bias) v over `[B, H, ·, hd]` heads. Prefill and training (T > 1) run
 * flag-free 2-D matMuls per (row, head), wasm's fast path (`bmm`); a decoding step (T = 1)
 * runs one batched matMul with `transposeB` against the cache instead: B·H kernels of one query
 * row each cost more in dispatch than they compute (2.5× generate, measured in `deno task bench`).
 */
function attention(q: tf.Tensor4D, k: tf.Tensor4D, v: tf.Tensor4D, bias: tf.Tensor, scale: number): tf.Tensor3D {
  const [B, H, T, hd] = q.shape;
  const S = k.shape[2];
  const rows = (x: tf.Tensor4D, n: number) => tf.reshape(x, [B * H, n, hd]) as tf.Tensor3D;
  const scores = tf.reshape(
    T === 1 ? tf.matMul(rows(q, T), rows(k, S), false, true) : bmmTransposed(rows(q, T), rows(k, S)),
    [B, H, T, S],
  );
  const probs = tf.reshape(tf.softmax(tf.add(tf.mul(scores, scale), bias)), [B * H, T, S]);
  return T === 1 ? tf.matMul(probs as tf.Tensor3D, rows(v, S)) : bmm(probs as tf.Tensor3D, rows(v, S));
}

function w(model: Model, name: string): tf.Variable {
  const v = model.weights.get(name);
  if (v === undefined) throw new Error(`Model ${model.id} has no weight ${name} (was it disposed?)`);
  return v;
}

/**
 * Hidden states of the decoder for a batch of token ids.
 *
 * ```text
 * x₀ = E[tokens]
 * xₗ' = xₗ + W_o · Attn(RoPE(W_q n), RoPE(W_k n), W_v n),   n = RMSNorm(xₗ)
 * xₗ₊₁ = xₗ' + W_down (silu(W_gate m) ⊙ W_up m),              m = RMSNorm(xₗ')
 * hidden = RMSNorm(x_L)
 * ```
 *
 * Shapes: `tokens [B, T]` int32 → `hidden [B, T, D]`.
 *
 * Source: Touvron et al. 2023 (LLaMA, arXiv:2302.13971) §2.2 (pre-norm
 * RMSNorm, SwiGLU, RoPE); Su et al. 2021 (RoFormer, arXiv:2104.09864) Eq. 34.
 * Reference: MiniMind `model_minimind.py`; bench/torch_ref.py (the same
 * model in PyTorch, interleaved RoPE pairs, the convention used here).
 *
 * @param model The model (policy or critic trunk).
 * @param tokens Token ids `[B, T]` (int32 tensor).
 * @param options Positions, attention bias, KV cache.
 * @returns Hidden states (and the extended cache).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { tf } from "../tf.ts";
 * import { modelPreset } from "./config.ts";
 * import { createModel } from "./params.ts";
 * import { forwardHidden } from "./transformer.ts";
 *
 * const m = createModel(modelPreset("tiny", 20));
 * const { hidden } = forwardHidden(m, tf.tensor2d([[1, 2, 3]], undefined, "int32"));
 * assert.deepEqual(hidden.shape, [1, 3, 32]);
 * m.dispose();
 * ```
 */
export function forwardHidden(model: Model, tokens: tf.Tensor2D, options: ForwardOptions = {}): ForwardResult {
  const { config } = model;
  const [B, T] = tokens.shape;
  const { cache, returnCache = false } = options;
  const past = cache?.keys[0]?.shape[2] ?? 0;
  if (past + T > config.maxPositions && options.positions === undefined) {
    throw new RangeError(
      `Cannot run the model: ${past + T} positions exceed maxPositions ${config.maxPositions} (truncate the context)`,
    );
  }
  const H = config.nHeads;
  const D = config.dModel;
  const hd = D / H;
  const noGradient = options.fused !== undefined; // fused weights are for passes without gradients
  let outCache: KvCache | undefined;
  const hidden = tf.tidy(() => {
    // RoPE tables for these positions: [1, 1, T, hd] shared, or [B, 1, T, hd] per row
    let cos: tf.Tensor;
    let sin: tf.Tensor;
    if (options.positions !== undefined) {
      const flat = tf.reshape(options.positions, [B * T]);
      cos = tf.reshape(tf.gather(model.ropeCos, flat), [B, 1, T, hd]);
      sin = tf.reshape(tf.gather(model.ropeSin, flat), [B, 1, T, hd]);
    } else {
      cos = tf.reshape(tf.slice(model.ropeCos, [past, 0], [T, hd]), [1, 1, T, hd]);
      sin = tf.reshape(tf.slice(model.ropeSin, [past, 0], [T, hd]), [1, 1, T, hd]);
    }
    const bias = options.attentionBias ?? causalBias(T, past);
    const scale = 1 / Math.sqrt(hd);
    const newKeys: tf.Tensor4D[] = [];
    const newValues: tf.Tensor4D[] = [];
    // [B, T, D] ↔ [B, H, T, hd]; with one token (decoding) both layouts are the same memory, a reshape
    const heads = (x: tf.Tensor) =>
      (T === 1
        ? tf.reshape(x, [B, H, 1, hd])
        : tf.transpose(tf.reshape(x, [B, T, H, hd]), [0, 2, 1, 3])) as tf.Tensor4D;
    const merge = (x: tf.Tensor) =>
      T === 1
        ? tf.reshape(x, [B, 1, D])
        : tf.reshape(tf.transpose(tf.reshape(x, [B, H, T, hd]), [0, 2, 1, 3]), [B, T, D]);

    let x: tf.Tensor = tf.gather(w(model, "model.embed_tokens.weight"), tokens); // [B, T, D]
    for (let l = 0; l < config.nLayers; l++) {
      const p = `model.layers.${l}`;
      const n = rmsNorm(x, w(model, `${p}.input_layernorm.weight`), config.normEps, noGradient);
      let q: tf.Tensor4D, k: tf.Tensor4D, v: tf.Tensor4D;
      if (options.fused !== undefined && tf.getBackend() === "wasm") {
        // the fused product's q|k|v into RoPE'd heads in one kernel (the same values as the split, heads and rope)
        [q, k, v] = tf.engine().runKernel(QKV_HEADS_KERNEL, { qkv: dense(n, options.fused.qkv[l]!), cos, sin }, {
          heads: H,
        }) as unknown as [tf.Tensor4D, tf.Tensor4D, tf.Tensor4D];
      } else {
        const [qn, kn, vn] = options.fused !== undefined
          ? tf.split(dense(n, options.fused.qkv[l]!), 3, -1)
          : [`${p}.self_attn.q_proj.weight`, `${p}.self_attn.k_proj.weight`, `${p}.self_attn.v_proj.weight`].map((
            name,
          ) => dense(n, w(model, name) as tf.Tensor2D));
        q = rope(heads(qn!), cos, sin, model.ropeRotation);
        k = rope(heads(kn!), cos, sin, model.ropeRotation);
        v = heads(vn!);
      }
      if (cache !== undefined) {
        k = tf.concat([cache.keys[l]!, k], 2);
        v = tf.concat([cache.values[l]!, v], 2);
      }
      if (returnCache) {
        newKeys.push(k);
        newValues.push(v);
      }
      const att = attention(q, k, v, bias, scale);
      const merged = merge(att);
      x = tf.add(x, dense(merged, w(model, `${p}.self_attn.o_proj.weight`) as tf.Tensor2D));
      const m = rmsNorm(x, w(model, `${p}.post_attention_layernorm.weight`), config.normEps, noGradient);
      const [gate, up] = options.fused !== undefined
        ? tf.split(dense(m, options.fused.gateUp[l]!), 2, -1) as [tf.Tensor, tf.Tensor]
        : [
          dense(m, w(model, `${p}.mlp.gate_proj.weight`) as tf.Tensor2D),
          dense(m, w(model, `${p}.mlp.up_proj.weight`) as tf.Tensor2D),
        ];
      const act = tf.mul(tf.mul(gate, tf.sigmoid(gate)), up); // silu(gate) ⊙ up
      x = tf.add(x, dense(act, w(model, `${p}.mlp.down_proj.weight`) as tf.Tensor2D));
    }
    const out = rmsNorm(x, w(model, "model.norm.weight"), config.normEps, noGradient) as tf.Tensor3D;
    // kept last: a throw anywhere above leaves the new keys and values to the tidy
    if (returnCache) {
      newKeys.forEach((t) => tf.keep(t));
      newValues.forEach((t) => tf.keep(t));
      outCache = { keys: newKeys, values: newValues };
    }
    return out;
  });
  return outCache === undefined ? { hidden } : { hidden, cache: outCache };
}

/**
 * The projection weights of every layer concatenated for passes without
 * gradients (decoding, scoring): `[W_q | W_k | W_v]` and `[W_gate | W_up]`.
 * A product against the concatenation gives, column by column, the same
 * float32 values as the separate products (each output element is the same
 * dot product over D), so the forward is unchanged bit for bit while a
 * decoded token runs three fewer matrix products per layer. Training keeps
 * the separate weights: its input gradient would sum q, k and v's terms in
 * another order.
 *
 * Source: fused QKV projections (GPT-2's `c_attn`, Megatron-LM's `ColumnParallelLinear`).
 *
 * @param model A policy or critic model.
 * @returns New tensors owned by the caller ({@linkcode disposeFusedWeights}).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { tf } from "../tf.ts";
 * import { modelPreset } from "./config.ts";
 * import { createModel } from "./params.ts";
 * import { disposeFusedWeights, forwardHidden, fuseWeights } from "./transformer.ts";
 *
 * const m = createModel(modelPreset("tiny", 20), { seed: 2 });
 * const tokens = tf.tensor2d([[1, 2, 3]], undefined, "int32");
 * const fused = fuseWeights(m);
 * const a = forwardHidden(m, tokens).hidden.dataSync();
 * const b = forwardHidden(m, tokens, { fused }).hidden.dataSync();
 * assert.ok(a.every((v, i) => Object.is(v, b[i])));
 * disposeFusedWeights(fused);
 * m.dispose();
 * ```
 */
export function fuseWeights(model: Model): FusedWeights {
  const layers = Array.from({ length: model.config.nLayers }, (_, l) => `model.layers.${l}`);
  return {
    qkv: layers.map((p) =>
      tf.concat(["q_proj", "k_proj", "v_proj"].map((n) => w(model, `${p}.self_attn.${n}.weight`)), 1) as tf.Tensor2D
    ),
    gateUp: layers.map((p) =>
      tf.concat([w(model, `${p}.mlp.gate_proj.weight`), w(model, `${p}.mlp.up_proj.weight`)], 1) as tf.Tensor2D
    ),
  };
}

/**
 * Frees what {@linkcode fuseWeights} made.
 *
 * Source: TensorFlow.js memory management (`tf.dispose`).
 *
 * @param fused The fused weights.
 * @returns Nothing.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { tf } from "../tf.ts";
 * import { modelPreset } from "./config.ts";
 * import { createModel } from "./params.ts";
 * import { disposeFusedWeights, fuseWeights } from "./transformer.ts";
 *
 * const m = createModel(modelPreset("tiny", 20));
 * const before = tf.memory().numTensors;
 * disposeFusedWeights(fuseWeights(m));
 * assert.equal(tf.memory().numTensors, before);
 * m.dispose();
 * ```
 */
export function disposeFusedWeights(fused: FusedWeights): void {
  tf.dispose([...fused.qkv, ...fused.gateUp]);
}

/**
 * The tied output projection: the token embedding, transposed explicitly
 * (wasm's matMul fast path takes no transpose flag).
 *
 * ```text
 * W_out = Eᵀ   [D, V]
 * ```
 *
 * Source: Press & Wolf 2017 (arXiv:1608.05859), tied input/output embeddings.
 *
 * @param model A policy model.
 * @returns A new `[D, V]` tensor owned by the caller (a decoding loop makes it once and passes it to
 *   {@linkcode outputLogits} at every token: the transpose costs more than one token's projection).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { modelPreset } from "./config.ts";
 * import { createModel } from "./params.ts";
 * import { outputProjection } from "./transformer.ts";
 *
 * const m = createModel(modelPreset("tiny", 20));
 * assert.deepEqual(outputProjection(m).shape, [32, 20]);
 * m.dispose();
 * ```
 */
export function outputProjection(model: Model): tf.Tensor2D {
  return tf.transpose(w(model, "model.embed_tokens.weight")) as tf.Tensor2D;
}

/**
 * Next-token logits through the tied output projection.
 *
 * ```text
 * logits = hidden · Eᵀ      (E the token embedding, transposed explicitly)
 * ```
 *
 * Shapes: `hidden [B, T, D]` → `[B, T, V]`.
 *
 * Source: Press & Wolf 2017 (arXiv:1608.05859), tied input/output embeddings.
 *
 * @param model A policy model.
 * @param hidden Output of {@linkcode forwardHidden}.
 * @param projection {@linkcode outputProjection}'s `Eᵀ` when the caller reuses one across calls;
 *   default: made here.
 * @returns A new `[B, T, V]` tensor owned by the caller.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { tf } from "../tf.ts";
 * import { modelPreset } from "./config.ts";
 * import { createModel } from "./params.ts";
 * import { forwardHidden, outputLogits, outputProjection } from "./transformer.ts";
 *
 * const m = createModel(modelPreset("tiny", 20));
 * const { hidden } = forwardHidden(m, tf.tensor2d([[1, 2]], undefined, "int32"));
 * assert.deepEqual(outputLogits(m, hidden).shape, [1, 2, 20]);
 * assert.deepEqual(outputLogits(m, hidden, outputProjection(m)).arraySync(), outputLogits(m, hidden).arraySync());
 * m.dispose();
 * ```
 */
export function outputLogits(model: Model, hidden: tf.Tensor3D, projection?: tf.Tensor2D): tf.Tensor3D {
  return tf.tidy(() => dense(hidden, projection ?? outputProjection(model)) as tf.Tensor3D);
}

/**
 * The critic's value of every prefix: a scalar head on the final hidden state.
 *
 * ```text
 * V(s_t) = hidden_t · w_v + b_v
 * ```
 *
 * Shapes: `hidden [B, T, D]` → `[B, T]`.
 *
 * Source: MiniMind `train_ppo.py` `CriticModel` (value head with bias on the normed hidden state).
 *
 * @param model A critic model.
 * @param hidden Output of {@linkcode forwardHidden}.
 * @returns A new `[B, T]` tensor owned by the caller.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { tf } from "../tf.ts";
 * import { modelPreset } from "./config.ts";
 * import { createModel } from "./params.ts";
 * import { forwardHidden, valueHead } from "./transformer.ts";
 *
 * const c = createModel(modelPreset("tiny", 20), { kind: "critic" });
 * assert.deepEqual(valueHead(c, forwardHidden(c, tf.tensor2d([[1, 2]], undefined, "int32")).hidden).shape, [1, 2]);
 * c.dispose();
 * ```
 */
export function valueHead(model: Model, hidden: tf.Tensor3D): tf.Tensor2D {
  if (model.kind !== "critic") throw new TypeError(`valueHead needs a critic model, ${model.id} is a ${model.kind}`);
  const [B, T] = hidden.shape;
  return tf.tidy(() =>
    tf.reshape(tf.add(dense(hidden, w(model, "value_head.weight") as tf.Tensor2D), w(model, "value_head.bias")), [B, T])
  ) as tf.Tensor2D;
}

/**
 * Convenience: `outputLogits(model, forwardHidden(model, tokens).hidden)`.
 *
 * Source: see {@linkcode forwardHidden}.
 *
 * @param model A policy model.
 * @param tokens Token ids `[B, T]` (int32 tensor).
 * @returns Logits `[B, T, V]`, owned by the caller.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { tf } from "../tf.ts";
 * import { modelPreset } from "./config.ts";
 * import { createModel } from "./params.ts";
 * import { forwardLogits } from "./transformer.ts";
 *
 * const m = createModel(modelPreset("tiny", 20));
 * assert.deepEqual(forwardLogits(m, tf.tensor2d([[1]], undefined, "int32")).shape, [1, 1, 20]);
 * m.dispose();
 * ```
 */
export function forwardLogits(model: Model, tokens: tf.Tensor2D): tf.Tensor3D {
  return tf.tidy(() => outputLogits(model, forwardHidden(model, tokens).hidden));
}
