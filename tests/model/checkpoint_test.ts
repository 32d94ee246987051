import assert from "node:assert/strict";
import { tf } from "../../lib/tf.ts";
import { modelPreset } from "../../lib/model/config.ts";
import { createModel, trainableVariables } from "../../lib/model/params.ts";
import { forwardLogits } from "../../lib/model/transformer.ts";
import {
  currentCheckpoint,
  loadCheckpoint,
  readCheckpointRecord,
  saveCheckpoint,
  verifyCheckpoint,
} from "../../lib/model/checkpoint.ts";
import { decodeSafetensors, encodeSafetensors } from "../../lib/model/safetensors.ts";
import { DataError } from "../../lib/errors.ts";
import { createAdamW } from "../../lib/optim/adamw.ts";
import { assertAllClose } from "../../lib/testing/all_close.ts";

Deno.test("saveCheckpoint() → loadCheckpoint() gives identical logits and optimizer state", async () => {
  const dir = await Deno.makeTempDir();
  const m = createModel(modelPreset("tiny", 30), { seed: 31 });
  const critic = createModel(modelPreset("tiny", 30), { seed: 32, kind: "critic" });
  const opt = createAdamW(trainableVariables(m), { lr: 0.01 });
  const grads = tf.tidy(() =>
    tf.variableGrads(
      () => tf.sum(forwardLogits(m, tf.tensor2d([[1, 2]], undefined, "int32"))) as tf.Scalar,
      trainableVariables(m),
    ).grads
  );
  opt.apply(grads);
  tf.dispose(grads);
  await saveCheckpoint(dir, { models: { policy: m, critic }, optimizers: { policy: opt }, state: { step: 3 } });
  const loaded = await loadCheckpoint(dir, {
    optimizers: { policy: (model) => createAdamW(trainableVariables(model), { lr: 0.01 }) },
  });
  const tokens = tf.tensor2d([[3, 1, 4, 1, 5]], undefined, "int32");
  assertAllClose(forwardLogits(loaded.models.policy!, tokens), forwardLogits(m, tokens).arraySync() as number[][][], {
    rtol: 0,
    atol: 0,
  });
  assert.equal(loaded.models.critic!.kind, "critic");
  assert.equal(loaded.optimizers.policy!.stepCount, 1);
  const name = "model.layers.0.mlp.up_proj.weight";
  const mOld = opt.state().m.get(m.weights.get(name)!.name)!;
  const mNew = loaded.optimizers.policy!.state().m.get(loaded.models.policy!.weights.get(name)!.name)!;
  assertAllClose(mNew, mOld.arraySync() as number[][], { rtol: 0, atol: 0 });
  assert.equal(loaded.state.step, 3);
  // verifying asks for optimizer states by model name (no factory): present for the policy, absent for the critic
  const tensors = tf.memory().numTensors;
  assert.equal((await verifyCheckpoint(dir, { optimizers: ["policy"], expect: { vocabSize: 30 } })).state.step, 3);
  assert.equal(tf.memory().numTensors, tensors, "verifying creates no tensor");
  await assert.rejects(
    verifyCheckpoint(dir, { optimizers: ["policy", "critic"] }),
    (e: Error) => e instanceof DataError && /no optimizer state for critic/.test(e.message),
  );
  await assert.rejects(verifyCheckpoint(dir, { expect: { vocabSize: 31 } }), /vocabSize = 30, expected 31/);
  for (const x of [m, critic, loaded.models.policy!, loaded.models.critic!]) x.dispose();
  opt.dispose();
  loaded.optimizers.policy!.dispose();
  tokens.dispose();
  await Deno.remove(dir, { recursive: true });
});

Deno.test("loadCheckpoint() refuses another architecture and corrupted files; leaves no temp files", async () => {
  const dir = await Deno.makeTempDir();
  const m = createModel(modelPreset("tiny", 30), { seed: 33 });
  await saveCheckpoint(dir, { models: { policy: m } });
  assert.deepEqual([...Deno.readDirSync(dir)].map((e) => e.name).sort(), ["config.json", "policy.safetensors"]);
  await assert.rejects(
    loadCheckpoint(dir, { expect: { dModel: 64 } }),
    /has dModel = 32, expected 64 \(another architecture\)/,
  );
  const before = tf.memory().numTensors;
  const bytes = await Deno.readFile(`${dir}/policy.safetensors`);
  bytes[bytes.length - 1] = bytes[bytes.length - 1]! ^ 0xff;
  await Deno.writeFile(`${dir}/policy.safetensors`, bytes);
  await assert.rejects(loadCheckpoint(dir), /policy.safetensors is corrupted/);
  await Deno.writeFile(`${dir}/policy.safetensors`, bytes.slice(0, 100));
  await assert.rejects(loadCheckpoint(dir), /found 100 bytes/);
  assert.equal(tf.memory().numTensors, before, "a failed load frees what it created");
  await Deno.writeTextFile(`${dir}/config.json`, "{ nope");
  await assert.rejects(loadCheckpoint(dir), /config.json is not valid JSON/);
  m.dispose();
  await Deno.remove(dir, { recursive: true });
});

Deno.test("saveCheckpoint(): killed at each point of a save, the checkpoint found is the previous one or the new one, whole", async () => {
  const checkpoint = new URL("../../lib/model/checkpoint.ts", import.meta.url).href;
  const params = new URL("../../lib/model/params.ts", import.meta.url).href;
  const config = new URL("../../lib/model/config.ts", import.meta.url).href;
  // the first save has nothing to swap out: "checkpoint-swap" is first reached by the second
  const points = [["checkpoint-staged", "@2", 1], ["checkpoint-swap", "@1", 2], [
    "checkpoint-swapped",
    "@2",
    2,
  ]] as const;
  for (const [point, at, expected] of points) {
    const run = await Deno.makeTempDir();
    const dir = `${run}/sft`;
    // step 1 saved whole, then step 2 killed at the point
    const code = `import { saveCheckpoint } from "${checkpoint}";
import { createModel } from "${params}";
import { modelPreset } from "${config}";
const m = createModel(modelPreset("tiny", 16), { seed: 1 });
await saveCheckpoint("${dir}", { models: { policy: m }, state: { step: 1 } });
m.weights.get("model.norm.weight").assign(m.weights.get("model.norm.weight").mul(2));
await saveCheckpoint("${dir}", { models: { policy: m }, state: { step: 2 } });`;
    const r = await new Deno.Command(Deno.execPath(), { args: ["eval", code], env: { MEMPO_FAULT: `${point}${at}` } })
      .output();
    assert.equal(r.signal, "SIGKILL", `${point}: ${new TextDecoder().decode(r.stderr)}`);
    const where = await currentCheckpoint(dir);
    assert.equal(where, point === "checkpoint-swap" ? `${run}/.sft.next` : dir, point);
    assert.equal((await readCheckpointRecord(dir))!.state.step, expected, point);
    const loaded = await loadCheckpoint(dir, { trainable: false });
    const norm = loaded.models.policy!.weights.get("model.norm.weight")!.arraySync() as number[];
    assert.equal(norm[0], expected, `${point}: the weights are those of step ${expected}`);
    loaded.models.policy!.dispose();
    // the next save finishes what the kill left and leaves one directory, no hidden sibling
    const m = createModel(modelPreset("tiny", 16), { seed: 1 });
    await saveCheckpoint(dir, { models: { policy: m }, state: { step: 3 } });
    m.dispose();
    assert.deepEqual([...Deno.readDirSync(run)].map((e) => e.name), ["sft"], point);
    assert.equal((await readCheckpointRecord(dir))!.state.step, 3);
  }
});

Deno.test("loadCheckpoint(): a config.json that states another architecture than its weights is refused, naming file, field and both values", async () => {
  const dir = await Deno.makeTempDir();
  const m = createModel(modelPreset("tiny", 30), { seed: 34 });
  await saveCheckpoint(dir, { models: { policy: m } });
  const original = await Deno.readTextFile(`${dir}/config.json`);
  const edit = async (change: (a: Record<string, number>) => void) => {
    const record = JSON.parse(original);
    change(record.models.policy.architecture);
    await Deno.writeTextFile(`${dir}/config.json`, JSON.stringify(record));
  };
  const cases: [(a: Record<string, number>) => void, RegExp][] = [
    [
      (a) => (a.nLayers = 1),
      /config\.json says models\.policy\.architecture\.nLayers = 1, but policy\.safetensors was saved with 2/,
    ],
    [(a) => (a.nHeads = 4), /architecture\.nHeads = 4, but policy\.safetensors was saved with 2/],
    [(a) => (a.maxPositions = 1024), /architecture\.maxPositions = 1024, but policy\.safetensors was saved with 512/],
  ];
  for (const [change, message] of cases) {
    await edit(change);
    await assert.rejects(loadCheckpoint(dir), (e: Error) => e instanceof DataError && message.test(e.message));
  }
  // weights written before they carried their architecture: the shapes still tell L, D, V and the SwiGLU width
  const bytes = await Deno.readFile(`${dir}/policy.safetensors`);
  const file = decodeSafetensors(bytes);
  const bare = encodeSafetensors(file.tensors, { format: "pt", kind: "policy" });
  await Deno.writeFile(`${dir}/policy.safetensors`, bare);
  const digest = [...new Uint8Array(await crypto.subtle.digest("SHA-256", bare as Uint8Array<ArrayBuffer>))]
    .map((b) => b.toString(16).padStart(2, "0")).join("");
  const withFile = (change: (a: Record<string, number>) => void) => {
    const record = JSON.parse(original);
    record.models.policy.bytes = bare.length;
    record.models.policy.sha256 = digest;
    change(record.models.policy.architecture);
    return Deno.writeTextFile(`${dir}/config.json`, JSON.stringify(record));
  };
  await withFile(() => {});
  (await loadCheckpoint(dir)).models.policy!.dispose();
  for (
    const [change, message] of [
      [(a) => (a.nLayers = 1), /nLayers = 1, but policy\.safetensors holds layers: 2/],
      [(a) => (a.ffnHidden = 32), /ffnHidden = 32, but policy\.safetensors has \(gate_proj rows\) 64/],
      [(a) => (a.vocabSize = 31), /vocabSize = 31, but policy\.safetensors has \(embed_tokens rows\) 30/],
    ] as [(a: Record<string, number>) => void, RegExp][]
  ) {
    await withFile(change);
    await assert.rejects(loadCheckpoint(dir), message);
  }
  m.dispose();
});
