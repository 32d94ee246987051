import assert from "node:assert/strict";
import { tf } from "../lib/tf.ts";
import {
  BACKEND_NAMES,
  type BackendName,
  getBackend,
  loadNodeBackend,
  releaseBackend,
  setBackend,
  wasmThreads,
  webgpuAvailable,
} from "../lib/backend.ts";
import { threadsFromEnv } from "../lib/wasm/wasm_threads.ts";
import { assertAllClose } from "../lib/testing/all_close.ts";
import { SKIP_WEBGPU } from "./_helpers.ts";

Deno.test("importing the package activates the wasm backend on MEMPO_THREADS threads (default every core)", () => {
  assert.equal(getBackend(), "wasm");
  const threads = threadsFromEnv();
  assert.equal(wasmThreads(), threads);
  assert.equal(tf.env().getBool("WASM_HAS_MULTITHREAD_SUPPORT"), threads > 1);
});

Deno.test("setBackend() switches between wasm and cpu and rejects unknown names", async () => {
  try {
    assert.equal(await setBackend("cpu"), "cpu");
    assert.equal(tf.getBackend(), "cpu");
  } finally {
    await setBackend("wasm");
  }
  await assert.rejects(
    setBackend("metal" as BackendName),
    /name must be one of wasm, cpu, webgpu, tensorflow, tensorflow-gpu, current value is "metal"/,
  );
  assert.deepEqual([...BACKEND_NAMES], ["wasm", "cpu", "webgpu", "tensorflow", "tensorflow-gpu"]);
});

Deno.test("loadNodeBackend() explains how to install tfjs-node where it cannot load", async () => {
  await assert.rejects(
    loadNodeBackend("tensorflow", () => Promise.reject(new Error("The Node.js native addon module can not be found"))),
    (e: Error) =>
      /Cannot use backend "tensorflow": @tensorflow\/tfjs-node could not be loaded/.test(e.message) &&
      /deno install --allow-scripts=npm:@tensorflow\/tfjs-node/.test(e.message),
  );
  let asked = "";
  await loadNodeBackend("tensorflow-gpu", (s) => {
    asked = s;
    return Promise.resolve();
  });
  assert.equal(asked, "npm:@tensorflow/tfjs-node-gpu@4.22.0");
});

Deno.test({
  name: "the webgpu backend runs where an adapter exists (required in CI), and releases its device",
  ignore: SKIP_WEBGPU,
  fn: async () => {
    const available = await webgpuAvailable();
    if (Deno.env.get("MEMPO_REQUIRE_WEBGPU") === "1") {
      assert.ok(available, "CI installs mesa-vulkan-drivers: need an adapter");
    }
    if (!available) {
      console.log(
        "skipped: webgpu: no WebGPU adapter here, so the GPU path was not exercised " +
          "(install a Vulkan driver, e.g. apt-get install mesa-vulkan-drivers for a software one)",
      );
      return;
    }
    const before = tf.memory().numTensors;
    try {
      for (let round = 0; round < 2; round++) {
        assert.equal(await setBackend("webgpu"), "webgpu");
        const device = (tf.backend() as unknown as { device: { lost: Promise<{ reason: string }> } }).device;
        const a = tf.tensor2d([[1, 2], [3, 4]]);
        const b = tf.tensor2d([[round], [1]]);
        const y = tf.matMul(a, b);
        assertAllClose(await y.array() as number[][], [[round + 2], [3 * round + 4]]);
        tf.dispose([a, b, y]);
        await setBackend("wasm");
        await assert.rejects(setBackend("webgpu").then(() => releaseBackend("webgpu")), /is the active backend/);
        await setBackend("wasm");
        assert.equal(await releaseBackend("webgpu"), true);
        assert.equal((await device.lost).reason, "destroyed"); // rebuilt with a new device next round
      }
    } finally {
      await setBackend("wasm");
      await releaseBackend("webgpu");
    }
    assert.equal(tf.memory().numTensors, before);
  },
});

Deno.test("releaseBackend() refuses the active backend, frees an initialised one, and is a no-op otherwise", async () => {
  assert.equal(getBackend(), "wasm");
  await assert.rejects(
    releaseBackend("wasm"),
    /Cannot release backend: name is the active backend, current value is "wasm"/,
  );
  assert.equal(await releaseBackend("tensorflow"), false); // never registered here
  try {
    await setBackend("cpu");
    const x = tf.tensor1d([1, 2, 3]);
    assert.deepEqual(await x.array(), [1, 2, 3]);
    x.dispose();
    await setBackend("wasm");
    assert.equal(await releaseBackend("cpu"), true);
    assert.equal(await releaseBackend("cpu"), false);
    assert.equal(await setBackend("cpu"), "cpu");
    const z = tf.tensor1d([4]);
    assert.deepEqual(await z.array(), [4]);
    z.dispose();
  } finally {
    await setBackend("wasm");
    await releaseBackend("cpu");
  }
});

Deno.test("webgpuAvailable() answers false under MEMPO_SKIP_WEBGPU=1 without touching navigator.gpu", async () => {
  const saved = Deno.env.get("MEMPO_SKIP_WEBGPU");
  const gpu = (globalThis.navigator as unknown as { gpu?: { requestAdapter(): Promise<unknown> } }).gpu;
  let asked = 0;
  const original = gpu?.requestAdapter;
  if (gpu) gpu.requestAdapter = () => (asked++, Promise.resolve(null));
  try {
    Deno.env.set("MEMPO_SKIP_WEBGPU", "1");
    assert.equal(await webgpuAvailable(), false);
    assert.equal(asked, 0);
    Deno.env.set("MEMPO_SKIP_WEBGPU", "0");
    assert.equal(await webgpuAvailable(), false); // the stub answers "no adapter"
    assert.equal(asked, gpu ? 1 : 0);
  } finally {
    if (gpu && original) gpu.requestAdapter = original;
    if (saved === undefined) Deno.env.delete("MEMPO_SKIP_WEBGPU");
    else Deno.env.set("MEMPO_SKIP_WEBGPU", saved);
  }
});
