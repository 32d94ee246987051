/**
 * A policy as a Hugging Face model folder for the Llama architecture
 * (`LlamaForCausalLM`), which `transformers`, verl and vLLM load: `config.json`,
 * `generation_config.json`, `model.safetensors` and the tokenizer files.
 *
 * @module
 */
import type { Model } from "../model/params.ts";
import { type ModelConfig, validateModelConfig } from "../model/config.ts";
import { decodeSafetensors, encodeSafetensors, type NamedArray, type SafetensorsFile } from "../model/safetensors.ts";
import { modelFromTorchLayout, torchLayoutArrays } from "../model/checkpoint.ts";
import { DataError } from "../errors.ts";
import { writeFileAtomic } from "../atomic_file.ts";
import { type Tokenizer, tokenizerFromJson } from "../text/tokenizer.ts";
import { hfTokenizerFiles } from "./hf_tokenizer.ts";
import { turnStopIds } from "../env/rollout.ts";

/**
 * `config.json` of `LlamaForCausalLM` for a model of this package: every head
 * attends with its own keys and values (`num_key_value_heads = H`), no biases,
 * SwiGLU, tied embeddings, no BOS (bos = eos, never added).
 *
 * ```text
 * hidden_size D, num_hidden_layers L, num_attention_heads H, head_dim D/H, intermediate_size F,
 * rms_norm_eps normEps, rope_theta ropeTheta, max_position_embeddings maxPositions, vocab_size V
 * ```
 *
 * Source: Hugging Face `transformers` `LlamaConfig`.
 *
 * @param config The architecture.
 * @param tokenizer The tokenizer (special token ids).
 * @returns The `config.json` object.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildTokenizer } from "../text/tokenizer.ts";
 * import { modelPreset } from "../model/config.ts";
 * import { hfLlamaConfig } from "./hf_model.ts";
 *
 * const tok = buildTokenizer(["a b"]);
 * const c = hfLlamaConfig(modelPreset("tiny", tok.size), tok);
 * assert.deepEqual([c.hidden_size, c.num_attention_heads, c.head_dim, c.tie_word_embeddings], [32, 2, 16, true]);
 * ```
 */
export function hfLlamaConfig(config: ModelConfig, tokenizer: Tokenizer): Record<string, unknown> {
  if (config.vocabSize !== tokenizer.size) {
    throw new TypeError(
      `Cannot export the model: its vocabSize (${config.vocabSize}) differs from the tokenizer's size (${tokenizer.size})`,
    );
  }
  return {
    architectures: ["LlamaForCausalLM"],
    model_type: "llama",
    vocab_size: config.vocabSize,
    hidden_size: config.dModel,
    intermediate_size: config.ffnHidden,
    num_hidden_layers: config.nLayers,
    num_attention_heads: config.nHeads,
    num_key_value_heads: config.nHeads,
    head_dim: config.dModel / config.nHeads,
    hidden_act: "silu",
    max_position_embeddings: config.maxPositions,
    rms_norm_eps: config.normEps,
    rope_theta: config.ropeTheta,
    rope_scaling: null,
    attention_bias: false,
    attention_dropout: 0,
    mlp_bias: false,
    tie_word_embeddings: true,
    initializer_range: 0.02,
    pretraining_tp: 1,
    use_cache: true,
    bos_token_id: tokenizer.eosId,
    eos_token_id: tokenizer.eosId,
    pad_token_id: tokenizer.padId,
    torch_dtype: "float32",
  };
}

/**
 * `generation_config.json`: a turn stops at its closing tag, as in the
 * package's sampler (`eos_token_id` as a list: `transformers` and vLLM stop at any).
 *
 * Source: Hugging Face `GenerationConfig` (a list of EOS ids).
 *
 * @param tokenizer The tokenizer.
 * @returns The object.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildTokenizer } from "../text/tokenizer.ts";
 * import { hfGenerationConfig } from "./hf_model.ts";
 *
 * const tok = buildTokenizer(["a"]);
 * assert.deepEqual(hfGenerationConfig(tok).eos_token_id, [12, 14, 6, 2]);
 * ```
 */
export function hfGenerationConfig(tokenizer: Tokenizer): { eos_token_id: number[]; [k: string]: unknown } {
  return {
    bos_token_id: tokenizer.eosId,
    eos_token_id: turnStopIds(tokenizer),
    pad_token_id: tokenizer.padId,
    do_sample: true,
    temperature: 1,
    top_p: 1,
  };
}

/**
 * The order of one head's query/key dimensions under Hugging Face's RoPE:
 * this package rotates interleaved pairs (2i, 2i + 1), Llama's `rotate_half`
 * rotates (i, i + hd/2) with the same frequency i, so row j of an exported
 * head is row `perm[j]` of the package's.
 *
 * ```text
 * perm = [0, 2, 4, …, hd − 2, 1, 3, …, hd − 1]
 * ```
 *
 * Since q and k are permuted alike, q·k and so every attention score is
 * unchanged (the permutation of Meta → Hugging Face Llama conversion, inverted).
 *
 * Source: Su et al. 2021 (RoFormer, arXiv:2104.09864) Eq. 34; Hugging Face
 * `convert_llama_weights_to_hf.py` `permute`.
 *
 * @param headDim hd (even).
 * @returns The permutation.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ropeHalfPermutation } from "./hf_model.ts";
 *
 * assert.deepEqual(ropeHalfPermutation(6), [0, 2, 4, 1, 3, 5]);
 * ```
 */
export function ropeHalfPermutation(headDim: number): number[] {
  if (!Number.isInteger(headDim) || headDim < 2 || headDim % 2 !== 0) {
    throw new RangeError(
      `Cannot permute RoPE dimensions: headDim must be an even integer ≥ 2, current value is ${headDim}`,
    );
  }
  const half = headDim / 2;
  return Array.from({ length: headDim }, (_, j) => (j < half ? 2 * j : 2 * (j - half) + 1));
}

/**
 * The policy's weights in Hugging Face's layout: the checkpoint's PyTorch
 * layout (`torchLayoutArrays`: linear weights `[out, in]`), with query and key
 * rows permuted per head for `rotate_half` ({@linkcode ropeHalfPermutation}),
 * no `lm_head` (tied).
 *
 * ```text
 * W_hf = W_packageᵀ;   q_proj, k_proj: row h·hd + j ← row h·hd + perm[j]
 * ```
 *
 * Source: Hugging Face `LlamaForCausalLM` state-dict names and layout.
 *
 * @param model A policy model.
 * @returns Named float32 arrays in checkpoint order.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { modelPreset } from "../model/config.ts";
 * import { createModel } from "../model/params.ts";
 * import { hfModelArrays } from "./hf_model.ts";
 *
 * const m = createModel(modelPreset("tiny", 20));
 * const arrays = await hfModelArrays(m);
 * const gate = arrays.find((a) => a.name === "model.layers.0.mlp.gate_proj.weight")!;
 * assert.deepEqual(gate.shape, [64, 32]); // [out, in]
 * m.dispose();
 * ```
 */
export async function hfModelArrays(model: Model): Promise<NamedArray[]> {
  if (model.kind !== "policy") {
    throw new TypeError(`Cannot export ${model.id}: only a policy model has a Hugging Face causal-LM layout`);
  }
  const { dModel: D, nHeads: H } = model.config;
  const hd = D / H;
  const perm = ropeHalfPermutation(hd);
  return (await torchLayoutArrays(model)).map((a) => {
    if (!a.name.endsWith("q_proj.weight") && !a.name.endsWith("k_proj.weight")) return a;
    const [rows, cols] = a.shape as [number, number]; // [out, in]
    const data = new Float32Array(rows * cols);
    for (let o = 0; o < rows; o++) {
      const src = Math.floor(o / hd) * hd + perm[o % hd]!;
      data.set(a.data.subarray(src * cols, (src + 1) * cols), o * cols);
    }
    return { name: a.name, shape: [rows, cols], data };
  });
}

/**
 * Writes a Hugging Face model folder: `config.json`, `generation_config.json`,
 * `model.safetensors` (`format: pt`), `tokenizer.json`, `tokenizer_config.json`,
 * `special_tokens_map.json`.
 *
 * Source: Hugging Face `save_pretrained` layout.
 *
 * @param dir The folder (created).
 * @param model A policy model.
 * @param tokenizer Its tokenizer.
 * @returns The names of the files written.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildTokenizer } from "../text/tokenizer.ts";
 * import { modelPreset } from "../model/config.ts";
 * import { createModel } from "../model/params.ts";
 * import { writeHfModel } from "./hf_model.ts";
 *
 * const tok = buildTokenizer(["a b"]);
 * const m = createModel(modelPreset("tiny", tok.size));
 * const dir = await Deno.makeTempDir();
 * assert.ok((await writeHfModel(dir, m, tok)).includes("model.safetensors"));
 * m.dispose();
 * ```
 */
export async function writeHfModel(dir: string, model: Model, tokenizer: Tokenizer): Promise<string[]> {
  const config = hfLlamaConfig(model.config, tokenizer);
  await Deno.mkdir(dir, { recursive: true });
  const files: Record<string, string | Uint8Array> = {
    "config.json": JSON.stringify(config, null, 2),
    "generation_config.json": JSON.stringify(hfGenerationConfig(tokenizer), null, 2),
    "model.safetensors": encodeSafetensors(await hfModelArrays(model), { format: "pt" }),
    ...hfTokenizerFiles(tokenizer, model.config.maxPositions),
  };
  for (const [name, content] of Object.entries(files)) {
    await writeFileAtomic(`${dir}/${name}`, typeof content === "string" ? content + "\n" : content);
  }
  return Object.keys(files);
}

/**
 * The architecture a Hugging Face `config.json` describes, checked to be the
 * one {@linkcode hfLlamaConfig} writes (Llama, tied embeddings, no biases,
 * as many key/value heads as heads).
 *
 * Source: the inverse of {@linkcode hfLlamaConfig}.
 *
 * @param json The parsed `config.json`.
 * @param where The file, for errors.
 * @returns The architecture.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildTokenizer } from "../text/tokenizer.ts";
 * import { modelPreset } from "../model/config.ts";
 * import { hfLlamaConfig, modelConfigFromHf } from "./hf_model.ts";
 *
 * const tok = buildTokenizer(["a b"]);
 * const config = modelPreset("tiny", tok.size);
 * assert.deepEqual(modelConfigFromHf(hfLlamaConfig(config, tok), "config.json"), config);
 * assert.throws(() => modelConfigFromHf({ ...hfLlamaConfig(config, tok), tie_word_embeddings: false }, "c.json"), /c.json: tie_word_embeddings must be true/);
 * ```
 */
export function modelConfigFromHf(json: unknown, where: string): ModelConfig {
  const c = (typeof json === "object" && json !== null ? json : {}) as Record<string, unknown>;
  const need = (key: string, ok: (v: unknown) => boolean, what: string) => {
    if (!ok(c[key])) {
      throw new DataError(`${where}: ${key} must be ${what}, current value is ${JSON.stringify(c[key])}`);
    }
  };
  need("model_type", (v) => v === "llama", '"llama"');
  need("tie_word_embeddings", (v) => v === true, "true");
  need("attention_bias", (v) => v === false || v === undefined, "false");
  need("mlp_bias", (v) => v === false || v === undefined, "false");
  need("num_key_value_heads", (v) => v === c.num_attention_heads, "num_attention_heads");
  const config = {
    vocabSize: c.vocab_size,
    dModel: c.hidden_size,
    nLayers: c.num_hidden_layers,
    nHeads: c.num_attention_heads,
    ffnHidden: c.intermediate_size,
    maxPositions: c.max_position_embeddings,
    ropeTheta: c.rope_theta,
    normEps: c.rms_norm_eps,
  } as unknown as ModelConfig;
  try {
    return validateModelConfig(config);
  } catch (e) {
    throw new DataError(`${where}: ${(e as Error).message}`);
  }
}

/**
 * Reads a policy back from a Hugging Face folder that {@linkcode writeHfModel}
 * wrote: `config.json` (the architecture), `model.safetensors` (q and k rows
 * back from the half-split RoPE order, every weight's shape checked) and
 * `tokenizer.json`.
 *
 * Source: Hugging Face `from_pretrained` layout; the inverse of {@linkcode writeHfModel}.
 *
 * @param dir The folder.
 * @returns The policy (owned by the caller) and its tokenizer.
 *
 * @example Written and read back: the same logits
 * ```ts
 * import { assertAllClose } from "../testing/all_close.ts";
 * import { buildTokenizer } from "../text/tokenizer.ts";
 * import { modelPreset } from "../model/config.ts";
 * import { createModel } from "../model/params.ts";
 * import { forwardLogits } from "../model/transformer.ts";
 * import { tf } from "../tf.ts";
 * import { readHfModel, writeHfModel } from "./hf_model.ts";
 *
 * const tok = buildTokenizer(["a b c d"]);
 * const m = createModel(modelPreset("tiny", tok.size), { seed: 2 });
 * const dir = await Deno.makeTempDir();
 * await writeHfModel(dir, m, tok);
 * const back = await readHfModel(dir);
 * const ids = tf.tensor2d([[1, 2, 3, 4]], [1, 4], "int32");
 * assertAllClose(forwardLogits(back.model, ids), forwardLogits(m, ids));
 * back.model.dispose();
 * m.dispose();
 * ```
 */
export async function readHfModel(dir: string): Promise<{ model: Model; tokenizer: Tokenizer }> {
  const read = async (name: string) => {
    try {
      return await Deno.readFile(`${dir}/${name}`);
    } catch (e) {
      throw new DataError(`Cannot read ${dir}/${name}: ${(e as Error).message}`);
    }
  };
  const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  const parse = (name: string, bytes: Uint8Array) => {
    try {
      return JSON.parse(text(bytes));
    } catch (e) {
      throw new DataError(`Cannot read ${dir}/${name}: not valid JSON (${(e as Error).message})`);
    }
  };
  const config = modelConfigFromHf(parse("config.json", await read("config.json")), `${dir}/config.json`);
  let tokenizer: Tokenizer;
  try {
    tokenizer = tokenizerFromJson(text(await read("tokenizer.json")));
  } catch (e) {
    throw new DataError(`Cannot read ${dir}/tokenizer.json: ${(e as Error).message}`);
  }
  if (tokenizer.size !== config.vocabSize) {
    throw new DataError(
      `${dir}: tokenizer.json has ${tokenizer.size} tokens and config.json's vocab_size is ${config.vocabSize}`,
    );
  }
  let weights: SafetensorsFile;
  try {
    weights = decodeSafetensors(await read("model.safetensors"), `${dir}/model.safetensors`);
  } catch (e) {
    throw e instanceof DataError ? e : new DataError((e as Error).message);
  }
  // q and k rows: Hugging Face row o holds this package's row (o's head) · hd + perm[o mod hd]
  const hd = config.dModel / config.nHeads;
  const perm = ropeHalfPermutation(hd);
  const tensors = weights.tensors.map((a) => {
    if (!a.name.endsWith("q_proj.weight") && !a.name.endsWith("k_proj.weight")) return a;
    const [rows, cols] = a.shape as [number, number];
    const data = new Float32Array(rows * cols);
    for (let o = 0; o < rows; o++) {
      const dst = Math.floor(o / hd) * hd + perm[o % hd]!;
      data.set(a.data.subarray(o * cols, (o + 1) * cols), dst * cols);
    }
    return { ...a, data };
  });
  const model = modelFromTorchLayout(config, "policy", { ...weights, tensors }, {
    where: dir,
    file: "model.safetensors",
  });
  return { model, tokenizer };
}
