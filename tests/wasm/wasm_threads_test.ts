import assert from "node:assert/strict";
import { tf } from "../../lib/tf.ts";
import { setBackend, wasmThreads } from "../../lib/backend.ts";
import * as wasm from "@tensorflow/tfjs-backend-wasm";
import {
  checkWasmGlue,
  PINNED_WASM_VERSION,
  startWasmFromEnv,
  threadsFromEnv,
  WASM_GLUE_MARKERS,
  wasmEnvError,
} from "../../lib/wasm/wasm_threads.ts";
import { SHARED_FLAGS } from "../../lib/cli/task.ts";
import { DataError, UsageError } from "../../lib/errors.ts";
import { modelPreset } from "../../lib/model/config.ts";
import { createModel, trainableVariables } from "../../lib/model/params.ts";
import { createAdamW } from "../../lib/optim/adamw.ts";
import { collateLm, disposeLmBatch } from "../../lib/train/collate.ts";
import { sftStep } from "../../lib/train/sft.ts";
import { createRng } from "../../lib/random.ts";

const glue = Deno.readTextFileSync(
  new URL("../../node_modules/@tensorflow/tfjs-backend-wasm/dist/tf-backend-wasm.node.js", import.meta.url),
);

Deno.test("checkWasmGlue(): the installed tfjs-backend-wasm is the pinned version with every piece of glue the loader needs", () => {
  const lock = Deno.readTextFileSync(new URL("../../deno.lock", import.meta.url));
  assert.match(lock, new RegExp(`"npm:@tensorflow/tfjs-backend-wasm@${PINNED_WASM_VERSION.replaceAll(".", "\\.")}"`));
  checkWasmGlue(PINNED_WASM_VERSION, glue);
  for (const { what, text } of WASM_GLUE_MARKERS) {
    assert.equal(glue.split(text).length, 2, `exactly one place in the glue: ${what}`);
    assert.throws(
      () => checkWasmGlue(PINNED_WASM_VERSION, glue.replace(text, "")),
      (e: Error) => e.message.includes(`no longer has: ${what}`) && e.message.includes("--threads 1"),
    );
  }
  assert.throws(
    () => checkWasmGlue("4.21.0", glue),
    (e: Error) => e instanceof DataError && /pinned to tfjs-backend-wasm 4\.22\.0, found 4\.21\.0/.test(e.message),
  );
});

Deno.test("threadsFromEnv(): MEMPO_THREADS, else every core; bad values are named", () => {
  assert.equal(threadsFromEnv("3"), 3);
  assert.equal(threadsFromEnv(" "), navigator.hardwareConcurrency);
  for (const bad of ["0", "-1", "1.5", "two"]) {
    assert.throws(
      () => threadsFromEnv(bad),
      (e: Error) =>
        e instanceof UsageError &&
        new RegExp(`MEMPO_THREADS must be an integer ≥ 1, current value is "${bad.replace(".", "\\.")}"`).test(
          e.message,
        ),
    );
  }
});

Deno.test("startWasmFromEnv(): a bad MEMPO_THREADS warns once and starts 1 thread, and the error waits for the task", async () => {
  const before = wasmThreads()!;
  const lines: string[] = [];
  try {
    assert.equal(await startWasmFromEnv(tf, wasm, "two", (l) => lines.push(l)), 1);
    assert.equal(wasmThreads(), 1);
    assert.deepEqual(lines, [
      'warning: MEMPO_THREADS must be an integer ≥ 1, current value is "two"; the wasm backend runs on 1 thread',
    ]);
    assert.ok(wasmEnvError() instanceof UsageError);
    // every task raises it before its body, unless --threads overrides the variable
    const env = Deno.env.get("MEMPO_THREADS");
    await assert.rejects(SHARED_FLAGS.threads!.apply!(undefined) as Promise<void>, /MEMPO_THREADS must be an integer/);
    assert.equal(Deno.env.get("MEMPO_THREADS"), env);
    assert.equal(await startWasmFromEnv(tf, wasm, String(before), (l) => lines.push(l)), before);
    assert.equal(wasmEnvError(), undefined);
    assert.equal(lines.length, 1);
  } finally {
    await setBackend("wasm", { threads: before });
  }
});

/** Four SFT steps of the benchmark model (its matrix products split across threads) on one fixed batch. */
async function fourSteps(threads: number) {
  await setBackend("wasm", { threads });
  assert.equal(wasmThreads(), threads);
  const V = 512;
  const model = createModel(modelPreset("bench", V), { seed: 3 });
  const rng = createRng(5);
  const rows = Array.from({ length: 4 }, () => Array.from({ length: 65 }, () => rng.int(V)));
  const batch = collateLm(rows.map((t) => ({ tokens: t, lossMask: t.map(() => 1) })), 0);
  const optimizer = createAdamW(trainableVariables(model), { lr: 1e-3, weightDecay: 0.01 });
  const losses: number[] = [];
  const gradNorms: number[] = [];
  for (let s = 0; s < 4; s++) {
    const r = await sftStep(model, optimizer, batch, { maxGradNorm: 1e9 });
    losses.push(r.loss);
    gradNorms.push(r.gradNorm);
  }
  const weights = [...model.weights].map(([name, v]) => [name, Array.from(v.dataSync())] as const);
  disposeLmBatch(batch);
  optimizer.dispose();
  model.dispose();
  return { losses, gradNorms, weights };
}

Deno.test("1 and 2 threads give bitwise-identical losses, gradient norms and weights over four training steps of the benchmark model", async () => {
  const before = wasmThreads();
  try {
    const one = await fourSteps(1);
    const two = await fourSteps(2);
    assert.deepEqual(two.losses, one.losses);
    assert.deepEqual(two.gradNorms, one.gradNorms);
    assert.ok(one.losses[3]! < one.losses[0]!, `it trains: ${one.losses}`);
    for (let i = 0; i < one.weights.length; i++) {
      const [name, a] = one.weights[i]!;
      const b = two.weights[i]![1];
      const differing = a.filter((v, j) => !Object.is(v, b[j])).length;
      assert.equal(differing, 0, `${name}: ${differing} of ${a.length} values differ`);
    }
    // a 2-D product large enough for XNNPACK to split across both threads
    const [x, y] = [tf.randomNormal([2048, 384], 0, 1, "float32", 1), tf.randomNormal([384, 128], 0, 1, "float32", 2)];
    const two2 = tf.matMul(x, y).dataSync();
    const xv = x.dataSync().slice();
    const yv = y.dataSync().slice();
    tf.dispose([x, y]);
    await setBackend("wasm", { threads: 1 });
    const one2 = tf.tidy(() => tf.matMul(tf.tensor2d(xv, [2048, 384]), tf.tensor2d(yv, [384, 128])).dataSync());
    assert.ok(one2.every((v, i) => Object.is(v, two2[i])), "2048×384 · 384×128 differs between 1 and 2 threads");
  } finally {
    await setBackend("wasm", { threads: before });
  }
});

Deno.test("a process on 2 threads exits by itself, and Deno's module workers still start", async () => {
  const code = `
    import { tf } from ${JSON.stringify(new URL("../../lib/tf.ts", import.meta.url).href)};
    import { wasmThreads } from ${JSON.stringify(new URL("../../lib/backend.ts", import.meta.url).href)};
    const p = tf.matMul(tf.ones([512, 512]), tf.ones([512, 512])).dataSync()[0];
    const w = new Worker("data:text/javascript,postMessage(6 * 7)", { type: "module" });
    const fromWorker = await new Promise((resolve) => { w.onmessage = (e) => resolve(e.data); });
    w.terminate();
    console.log(JSON.stringify({ threads: wasmThreads(), p, fromWorker }));
  `;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["eval", "--ext=ts", code],
    env: { MEMPO_THREADS: "2", NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
  const out = await child.output();
  clearTimeout(timer);
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.signal, null, `the process did not exit by itself (killed after 60 s): ${stderr}`);
  assert.equal(out.code, 0, stderr);
  assert.deepEqual(JSON.parse(new TextDecoder().decode(out.stdout)), { threads: 2, p: 512, fromWorker: 42 });
});
