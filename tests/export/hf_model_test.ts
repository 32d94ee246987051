import assert from "node:assert/strict";
import { tf } from "../../lib/tf.ts";
import { buildTokenizer } from "../../lib/text/tokenizer.ts";
import { modelPreset, validateModelConfig } from "../../lib/model/config.ts";
import { createModel } from "../../lib/model/params.ts";
import { forwardLogits } from "../../lib/model/transformer.ts";
import { saveCheckpoint } from "../../lib/model/checkpoint.ts";
import { decodeSafetensors } from "../../lib/model/safetensors.ts";
import {
  hfGenerationConfig,
  hfLlamaConfig,
  hfModelArrays,
  ropeHalfPermutation,
  writeHfModel,
} from "../../lib/export/hf_model.ts";
import { hasTorch, PYTHON } from "../_helpers.ts";

const tok = buildTokenizer(["zorbex was born in kalmar . kalmar is located in vestria ."]);

Deno.test("hfLlamaConfig() describes the architecture for LlamaForCausalLM and refuses another vocabulary", () => {
  const c = hfLlamaConfig(modelPreset("small", tok.size), tok);
  assert.deepEqual(
    [c.hidden_size, c.num_hidden_layers, c.num_attention_heads, c.num_key_value_heads, c.head_dim, c.intermediate_size],
    [128, 4, 4, 4, 32, 384],
  );
  assert.deepEqual([c.max_position_embeddings, c.rope_theta, c.rms_norm_eps, c.vocab_size], [
    2048,
    10000,
    1e-6,
    tok.size,
  ]);
  assert.deepEqual([c.tie_word_embeddings, c.attention_bias, c.mlp_bias, c.hidden_act], [true, false, false, "silu"]);
  assert.deepEqual([c.bos_token_id, c.eos_token_id, c.pad_token_id], [tok.eosId, tok.eosId, tok.padId]);
  assert.throws(
    () => hfLlamaConfig(modelPreset("tiny", tok.size + 1), tok),
    /vocabSize \(\d+\) differs from the tokenizer's size/,
  );
  assert.deepEqual(hfGenerationConfig(tok).eos_token_id, [
    tok.special("</search>"),
    tok.special("</answer>"),
    tok.special("<|end|>"),
    tok.eosId,
  ]);
});

Deno.test("ropeHalfPermutation() pairs (2i, 2i+1) → (i, i + hd/2); hfModelArrays() transposes and permutes q/k rows", async () => {
  assert.deepEqual(ropeHalfPermutation(8), [0, 2, 4, 6, 1, 3, 5, 7]);
  assert.throws(() => ropeHalfPermutation(5), /headDim must be an even integer ≥ 2, current value is 5/);
  const m = createModel(modelPreset("tiny", tok.size), { seed: 3 });
  const arrays = new Map((await hfModelArrays(m)).map((a) => [a.name, a]));
  assert.ok(!arrays.has("lm_head.weight"), "tied: no lm_head");
  assert.equal(arrays.size, m.weights.size);
  const D = 32;
  const hd = 16;
  const perm = ropeHalfPermutation(hd);
  const ours = (name: string) => m.weights.get(name)!.arraySync() as number[][]; // [in, out]
  const hf = (name: string) => arrays.get(name)!;
  for (const proj of ["q_proj", "k_proj", "v_proj", "o_proj"]) {
    const name = `model.layers.1.self_attn.${proj}.weight`;
    const w = ours(name);
    const a = hf(name);
    assert.deepEqual(a.shape, [D, D]);
    for (const o of [0, 1, 15, 16, 17, 31]) {
      const src = proj === "q_proj" || proj === "k_proj" ? Math.floor(o / hd) * hd + perm[o % hd]! : o;
      for (const i of [0, 5, 31]) assert.equal(a.data[o * D + i], Math.fround(w[i]![src]!), `${proj}[${o}][${i}]`);
    }
  }
  assert.deepEqual(hf("model.layers.0.mlp.down_proj.weight").shape, [32, 64]);
  await assert.rejects(hfModelArrays(createModel(modelPreset("tiny", 20), { kind: "critic" })), /only a policy model/);
  m.dispose();
});

async function hfLogits(dir: string, rows: number[][]): Promise<number[][][]> {
  await Deno.writeTextFile(`${dir}/tokens.json`, JSON.stringify(rows));
  const script = new URL("../_reference/hf_llama.py", import.meta.url).pathname;
  const out = await new Deno.Command(PYTHON, { args: [script, dir, `${dir}/tokens.json`] }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  return JSON.parse(new TextDecoder().decode(out.stdout));
}

function maxDiff(a: number[][][], b: number[][][]): number {
  let m = 0;
  a.forEach((r, i) => r.forEach((x, j) => x.forEach((v, k) => (m = Math.max(m, Math.abs(v - b[i]![j]![k]!))))));
  return m;
}

Deno.test("a PyTorch forward written from Hugging Face's Llama, configured only by config.json, gives the package's logits (≤ 1e-4)", async () => {
  if (!(await hasTorch("Hugging Face Llama logits"))) return;
  const configs = [
    modelPreset("tiny", tok.size),
    // 4 heads, another θ and ε: read from config.json, or the logits differ
    validateModelConfig({
      vocabSize: tok.size,
      dModel: 64,
      nLayers: 3,
      nHeads: 4,
      ffnHidden: 96,
      maxPositions: 96,
      ropeTheta: 500,
      normEps: 1e-5,
    }),
  ];
  const rows = [
    Array.from({ length: 80 }, (_, i) => (i * 7 + 3) % tok.size),
    Array.from({ length: 80 }, (_, i) => (i * i + 1) % tok.size),
  ];
  for (const [k, config] of configs.entries()) {
    const m = createModel(config, { seed: 11 + k });
    // sharpen attention (the initial q/k are small, attention near uniform): RoPE then decides the scores
    for (const [name, v] of m.weights) if (/[qk]_proj/.test(name)) v.assign(tf.tidy(() => tf.mul(v, 6)));
    const dir = await Deno.makeTempDir();
    await writeHfModel(dir, m, tok);
    const ours = tf.tidy(() => forwardLogits(m, tf.tensor2d(rows, undefined, "int32")).arraySync()) as number[][][];
    const diff = maxDiff(await hfLogits(dir, rows), ours);
    console.log(
      `HF Llama forward vs the package (d ${config.dModel}, ${config.nHeads} heads, 80 tokens): max |Δlogit| ${
        diff.toExponential(2)
      }`,
    );
    assert.ok(diff <= 1e-4, `max |Δlogit| ${diff}`);
    // the permutation matters: the package's own (interleaved-pair) weights under the HF forward are wrong
    const ck = await Deno.makeTempDir();
    await saveCheckpoint(ck, { models: { policy: m } });
    const file = decodeSafetensors(await Deno.readFile(`${ck}/policy.safetensors`));
    assert.deepEqual(file.tensors.map((t) => t.name).sort(), [...m.weights.keys()].sort());
    await Deno.copyFile(`${ck}/policy.safetensors`, `${dir}/model.safetensors`);
    const unpermuted = maxDiff(await hfLogits(dir, rows), ours);
    assert.ok(unpermuted > 1e-3, `without the RoPE permutation the logits should differ, max |Δ| ${unpermuted}`);
    m.dispose();
    await Deno.remove(dir, { recursive: true });
    await Deno.remove(ck, { recursive: true });
  }
});
