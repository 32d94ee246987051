import assert from "node:assert/strict";
import { tf } from "../../lib/tf.ts";
import {
  BACKEND_NAMES,
  type BackendName,
  getBackend,
  loadNodeBackend,
  setBackend,
  webgpuAvailable,
} from "../../lib/backend/backend.ts";
import { assertAllClose } from "../../lib/testing/all_close.ts";

Deno.test("importing the package activates the single-threaded wasm backend", () => {
  assert.equal(getBackend(), "wasm");
  assert.equal(tf.env().getBool("WASM_HAS_MULTITHREAD_SUPPORT"), false);
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

Deno.test("the webgpu backend runs where an adapter exists (required in CI)", async () => {
  const available = await webgpuAvailable();
  if (Deno.env.get("MEMPO_REQUIRE_WEBGPU") === "1") {
    assert.ok(available, "CI installs mesa-vulkan-drivers: need an adapter");
  }
  if (!available) {
    console.log("no WebGPU adapter here: install mesa-vulkan-drivers to exercise the GPU path");
    return;
  }
  try {
    assert.equal(await setBackend("webgpu"), "webgpu");
    const y = tf.matMul(tf.tensor2d([[1, 2], [3, 4]]), tf.tensor2d([[1], [1]]));
    assertAllClose(await y.array() as number[][], [[3], [7]]);
    y.dispose();
  } finally {
    await setBackend("wasm");
  }
});
