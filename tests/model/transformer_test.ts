import assert from "node:assert/strict";
import { tf } from "../../lib/tf.ts";
import { modelPreset } from "../../lib/model/config.ts";
import { createModel } from "../../lib/model/params.ts";
import {
  causalBias,
  disposeFusedWeights,
  forwardHidden,
  forwardLogits,
  fuseWeights,
  outputLogits,
  valueHead,
} from "../../lib/model/transformer.ts";
import { assertAllClose } from "../../lib/testing/all_close.ts";
import { assertNoTensorLeak, hasTorch, onBackends, PYTHON } from "../_helpers.ts";
import { saveCheckpoint } from "../../lib/model/checkpoint.ts";

const ids = (rows: number[][]) => tf.tensor2d(rows, undefined, "int32");

Deno.test("forwardLogits() shapes, and a changed future token never changes an earlier logit", () => {
  const m = createModel(modelPreset("tiny", 30), { seed: 1 });
  const a = forwardLogits(m, ids([[3, 4, 5, 6, 7]]));
  assert.deepEqual(a.shape, [1, 5, 30]);
  const b = forwardLogits(m, ids([[3, 4, 5, 29, 1]]));
  const av = a.arraySync()[0]!;
  const bv = b.arraySync()[0]!;
  assertAllClose(bv.slice(0, 3), av.slice(0, 3), { rtol: 1e-6, atol: 1e-7 });
  assert.ok(Math.abs(bv[4]![0]! - av[4]![0]!) > 1e-6, "the changed positions do change");
  tf.dispose([a, b]);
  m.dispose();
});

Deno.test("forwardHidden() with a KV cache equals the full forward (same logits)", () => {
  const m = createModel(modelPreset("tiny", 30), { seed: 2 });
  const seq = [5, 9, 2, 7, 11, 3];
  const full = forwardLogits(m, ids([seq]));
  const first = forwardHidden(m, ids([seq.slice(0, 4)]), { returnCache: true });
  const second = forwardHidden(m, ids([seq.slice(4)]), { cache: first.cache, returnCache: true });
  const tail = outputLogits(m, second.hidden);
  assertAllClose(tail.arraySync()[0]!, full.arraySync()[0]!.slice(4), { rtol: 1e-4, atol: 1e-5 });
  tf.dispose([
    full,
    first.hidden,
    second.hidden,
    tail,
    first.cache!.keys,
    first.cache!.values,
    second.cache!.keys,
    second.cache!.values,
  ]);
  m.dispose();
});

Deno.test("forwardHidden() one token at a time (the decoding path) equals the full forward, batch 2", () => {
  const m = createModel(modelPreset("tiny", 30), { seed: 6 });
  const rows = [[5, 9, 2, 7, 11, 3], [1, 4, 4, 8, 2, 6]];
  const full = forwardLogits(m, ids(rows));
  let { hidden, cache } = forwardHidden(m, ids(rows.map((r) => r.slice(0, 3))), { returnCache: true });
  const steps: number[][][][] = [];
  for (let t = 3; t < 6; t++) {
    hidden.dispose();
    const out = forwardHidden(m, ids(rows.map((r) => [r[t]!])), { cache, returnCache: true });
    tf.dispose([cache!.keys, cache!.values]);
    ({ hidden, cache } = out);
    const logits = outputLogits(m, hidden);
    steps.push(logits.arraySync());
    logits.dispose();
  }
  const want = full.arraySync();
  for (const b of [0, 1]) {
    assertAllClose(steps.map((s) => s[b]![0]!), want[b]!.slice(3), { rtol: 1e-4, atol: 1e-5 });
  }
  tf.dispose([full, hidden, cache!.keys, cache!.values]);
  m.dispose();
});

Deno.test("forwardHidden() with fused q|k|v and gate|up weights equals the separate products bit for bit (prefill and decoding, 1 and 2 threads)", async () => {
  const { setBackend, wasmThreads } = await import("../../lib/backend.ts");
  const before = wasmThreads();
  try {
    for (const threads of [1, 2]) {
      await setBackend("wasm", { threads });
      const m = createModel(modelPreset("bench", 64), { seed: 8 });
      const fused = fuseWeights(m);
      const rows = [[5, 9, 2, 7, 11, 3, 8, 1], [1, 4, 4, 8, 2, 6, 9, 9]];
      const run = (f: typeof fused | undefined) => {
        const pre = forwardHidden(m, ids(rows.map((r) => r.slice(0, 7))), { returnCache: true, fused: f });
        const step = forwardHidden(m, ids(rows.map((r) => [r[7]!])), { cache: pre.cache, returnCache: true, fused: f });
        const out = [...pre.hidden.dataSync(), ...step.hidden.dataSync()];
        tf.dispose([pre.hidden, step.hidden, pre.cache!.keys, pre.cache!.values, step.cache!.keys, step.cache!.values]);
        return out;
      };
      const plain = run(undefined);
      const withFused = run(fused);
      assert.equal(plain.length, 2 * 8 * 128);
      const differing = plain.filter((v, i) => !Object.is(v, withFused[i])).length;
      assert.equal(differing, 0, `${differing} values differ on ${threads} thread(s)`);
      disposeFusedWeights(fused);
      m.dispose();
    }
  } finally {
    await setBackend("wasm", { threads: before });
  }
});

Deno.test("forwardHidden() with left padding, positions and a padding bias equals the unpadded row", () => {
  const m = createModel(modelPreset("tiny", 30), { seed: 3 });
  const plain = forwardLogits(m, ids([[4, 5, 6]]));
  const P = 5;
  const bias = tf.tensor4d(
    Array.from({ length: P * P }, (_, i) => (Math.floor(i / P) < i % P || i % P < 2 ? -1e9 : 0)),
    [1, 1, P, P],
  );
  const { hidden } = forwardHidden(m, ids([[0, 0, 4, 5, 6]]), {
    positions: ids([[0, 0, 0, 1, 2]]),
    attentionBias: bias,
  });
  const padded = outputLogits(m, hidden);
  assertAllClose(padded.arraySync()[0]!.slice(2), plain.arraySync()[0]!, { rtol: 1e-4, atol: 1e-5 });
  tf.dispose([plain, bias, hidden, padded]);
  m.dispose();
});

Deno.test("model gradients match finite differences (tiny config, float32 central differences)", () => {
  const m = createModel(modelPreset("tiny", 12), { seed: 4 });
  const tokens = ids([[1, 5, 7, 2], [3, 3, 8, 11]]);
  const weights = tf.randomNormal([2, 4, 12], 0, 1, "float32", 5);
  const f = () => tf.sum(tf.mul(forwardLogits(m, tokens), weights)) as tf.Scalar;
  for (
    const name of [
      "model.layers.1.self_attn.q_proj.weight",
      "model.layers.0.mlp.up_proj.weight",
      "model.embed_tokens.weight",
      "model.layers.0.input_layernorm.weight",
    ]
  ) {
    const v = m.weights.get(name)!;
    const { grads } = tf.variableGrads(f, [v]);
    const g = grads[v.name]!.dataSync();
    const base = v.dataSync().slice();
    const h = 1e-2;
    for (const i of [0, 7, base.length - 1]) {
      const plus = base.slice();
      plus[i]! += h;
      v.assign(tf.tensor(plus, v.shape));
      const fp = f().dataSync()[0]!;
      const minus = base.slice();
      minus[i]! -= h;
      v.assign(tf.tensor(minus, v.shape));
      const fm = f().dataSync()[0]!;
      v.assign(tf.tensor(base, v.shape));
      assertAllClose(g[i]!, (fp - fm) / (2 * h), { rtol: 2e-2, atol: 2e-3, msg: `${name}[${i}]` });
    }
    tf.dispose(grads);
  }
  tf.dispose([tokens, weights]);
  m.dispose();
});

Deno.test("forward and gradients agree on wasm and cpu", async () => {
  const results = await onBackends(["wasm", "cpu"], () => {
    const m = createModel(modelPreset("tiny", 16), { seed: 6 });
    const out = tf.tidy(() => {
      const tokens = ids([[1, 2, 3, 4], [5, 6, 7, 8]]);
      const f = () => tf.sum(tf.square(forwardLogits(m, tokens))) as tf.Scalar;
      const v = m.weights.get("model.layers.0.self_attn.k_proj.weight")!;
      const { grads } = tf.variableGrads(f, [v]);
      return { logits: forwardLogits(m, tokens), grad: grads[v.name]! };
    });
    m.dispose();
    return out;
  });
  assertAllClose(results.get("wasm")!.logits, results.get("cpu")!.logits, { rtol: 1e-4, atol: 1e-5 });
  assertAllClose(results.get("wasm")!.grad, results.get("cpu")!.grad, { rtol: 1e-3, atol: 1e-6 });
});

Deno.test("valueHead() gives one value per position; causalBias() masks the future; no leaks", () => {
  const c = createModel(modelPreset("tiny", 16), { kind: "critic", seed: 7 });
  const tokens = ids([[1, 2, 3]]);
  assertNoTensorLeak(() => tf.tidy(() => valueHead(c, forwardHidden(c, tokens).hidden)));
  assert.throws(
    () => valueHead(createModel(modelPreset("tiny", 16)), tf.zeros([1, 1, 32]) as tf.Tensor3D),
    /needs a critic model/,
  );
  assertAllClose(causalBias(3), [[0, -1e9, -1e9], [0, 0, -1e9], [0, 0, 0]]);
  assert.throws(
    () => forwardHidden(c, tf.zeros([1, 600], "int32") as tf.Tensor2D),
    /600 positions exceed maxPositions 512/,
  );
  tokens.dispose();
  c.dispose();
});

Deno.test("a PyTorch model of the same architecture loads the safetensors and gives the same logits (≤ 1e-4)", async () => {
  if (!(await hasTorch("PyTorch parity"))) return;
  const python = PYTHON;
  const m = createModel(modelPreset("tiny", 40), { seed: 8 });
  const dir = await Deno.makeTempDir();
  await saveCheckpoint(dir, { models: { policy: m } });
  const rows = [[1, 5, 9, 13, 2, 39], [7, 7, 3, 0, 22, 18]];
  await Deno.writeTextFile(`${dir}/tokens.json`, JSON.stringify(rows));
  const out = await new Deno.Command(python, {
    args: [new URL("../_reference/torch_model.py", import.meta.url).pathname, dir, `${dir}/tokens.json`],
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  const torchLogits = JSON.parse(new TextDecoder().decode(out.stdout));
  const ours = forwardLogits(m, ids(rows));
  assertAllClose(ours.arraySync(), torchLogits, { rtol: 1e-4, atol: 1e-4 });
  ours.dispose();
  m.dispose();
  await Deno.remove(dir, { recursive: true });
});
