/**
 * Backend selection: one switch for every way this package can run tensors.
 *
 * | name             | what it is                                   | install                              |
 * | ---------------- | -------------------------------------------- | ------------------------------------ |
 * | `wasm` (default) | embedded WebAssembly, on every core          | nothing (npm package)                |
 * | `cpu`            | plain JavaScript kernels (slow, reference)    | nothing                              |
 * | `webgpu`         | Deno's `navigator.gpu` (Vulkan/Metal/D3D12)  | a GPU driver, or Mesa's lavapipe     |
 * | `tensorflow`     | libtensorflow via `@tensorflow/tfjs-node`     | needs the internet at install time   |
 * | `tensorflow-gpu` | libtensorflow CUDA via `tfjs-node-gpu`        | needs the internet and CUDA          |
 *
 * @module
 */
import * as wasm from "@tensorflow/tfjs-backend-wasm";
import { tf } from "./tf.ts";
import { startWasm, threadsFromEnv } from "./wasm/wasm_threads.ts";

/** Names accepted by {@linkcode setBackend} and `--backend`. */
export type BackendName = "wasm" | "cpu" | "webgpu" | "tensorflow" | "tensorflow-gpu";

/** Every backend name, in the order of the table above. */
export const BACKEND_NAMES: readonly BackendName[] = Object.freeze([
  "wasm",
  "cpu",
  "webgpu",
  "tensorflow",
  "tensorflow-gpu",
]);

const NODE_PACKAGES: Record<"tensorflow" | "tensorflow-gpu", string> = {
  "tensorflow": "@tensorflow/tfjs-node",
  "tensorflow-gpu": "@tensorflow/tfjs-node-gpu",
};

/**
 * Whether a WebGPU adapter can be obtained in this process (no backend change).
 * `MEMPO_SKIP_WEBGPU=1` answers `false` without asking, so the process never
 * loads a GPU driver (`deno task test` runs its main suite so, and the
 * backend-parity tests again with webgpu in a process of their own).
 *
 * Source: WebGPU `GPU.requestAdapter` (W3C WebGPU §4.2).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { webgpuAvailable } from "./backend.ts";
 *
 * const available = await webgpuAvailable();
 * if (Deno.env.get("MEMPO_SKIP_WEBGPU") === "1") assert.equal(available, false); // never asks the driver
 * // otherwise an adapter exactly when Deno's navigator.gpu yields one (none without a Vulkan driver)
 * else assert.equal(available, (await navigator.gpu?.requestAdapter()) != null);
 * ```
 *
 * @returns `true` when `navigator.gpu.requestAdapter()` yields an adapter.
 */
export async function webgpuAvailable(): Promise<boolean> {
  const gpu = (globalThis.navigator as { gpu?: { requestAdapter(): Promise<unknown> } } | undefined)
    ?.gpu;
  if (gpu === undefined || skipWebgpu()) return false;
  try {
    return (await gpu.requestAdapter()) !== null;
  } catch {
    return false;
  }
}

function skipWebgpu(): boolean {
  try {
    return Deno.env.get("MEMPO_SKIP_WEBGPU") === "1";
  } catch {
    return false; // no env permission: nothing was asked to be skipped
  }
}

/**
 * Loads `@tensorflow/tfjs-node` or `-gpu`, which register the `tensorflow`
 * backend, or throws an error that says how to install them.
 *
 * Source: TensorFlow.js Node bindings (`@tensorflow/tfjs-node` README).
 *
 * @param name `tensorflow` or `tensorflow-gpu`.
 * @param importer The dynamic import to use (injectable for tests).
 * @returns Nothing once the backend is registered.
 *
 * @example A machine without libtensorflow gets install instructions
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadNodeBackend } from "./backend.ts";
 *
 * await assert.rejects(
 *   loadNodeBackend("tensorflow-gpu", () => Promise.reject(new Error("tfjs_binding.node can not be found"))),
 *   /deno install --allow-scripts=npm:@tensorflow\/tfjs-node-gpu/,
 * );
 * ```
 */
export async function loadNodeBackend(
  name: "tensorflow" | "tensorflow-gpu",
  importer: (specifier: string) => Promise<unknown> = (s) => import(s),
): Promise<void> {
  const pkg = NODE_PACKAGES[name];
  const specifier = `npm:${pkg}@4.22.0`;
  try {
    await importer(specifier);
  } catch (cause) {
    throw new Error(
      `Cannot use backend "${name}": ${pkg} could not be loaded (${
        (cause as Error).message?.split("\n")[0]
      }). Its install step downloads libtensorflow, so install it on a machine with internet ` +
        `access: deno install --allow-scripts=npm:${pkg} (and add "${pkg}": "${specifier}" to deno.json imports)`,
      { cause },
    );
  }
}

/** Options of {@linkcode setBackend}. */
export interface BackendOptions {
  /**
   * `wasm` only: threads of its matrix products (1: the single-threaded build). A count other than the running
   * instance's restarts the backend (its tensors become unusable).
   * @default the running instance's, else `MEMPO_THREADS`, else every core
   */
  threads?: number;
}

/**
 * Makes `name` the active TensorFlow.js backend, loading it first if needed.
 *
 * The `wasm` backend is registered when `lib/tf.ts` is imported; `webgpu`,
 * `tensorflow` and `tensorflow-gpu` are loaded by dynamic import only when
 * asked for, so a machine without them never pays for (or fails on) them.
 *
 * Source: TensorFlow.js platform and environment guide.
 * Reference: `tf.setBackend`, `tf.ready` (tfjs-core 4.22).
 *
 * @param name The backend to activate.
 * @param options `threads` of the `wasm` backend.
 * @returns The active backend's name once it is ready.
 *
 * @example Switch to the pure-JS reference backend and back, then to one wasm thread
 * ```ts
 * import assert from "node:assert/strict";
 * import { setBackend, wasmThreads } from "./backend.ts";
 *
 * assert.equal(await setBackend("cpu"), "cpu");
 * assert.equal(await setBackend("wasm"), "wasm");
 * await setBackend("wasm", { threads: 1 });
 * assert.equal(wasmThreads(), 1);
 * ```
 */
export async function setBackend(name: BackendName, options: BackendOptions = {}): Promise<BackendName> {
  if (!BACKEND_NAMES.includes(name)) {
    throw new RangeError(
      `Cannot set backend: name must be one of ${BACKEND_NAMES.join(", ")}, current value is ${JSON.stringify(name)}`,
    );
  }
  if (name === "webgpu" && tf.findBackendFactory("webgpu") === null) {
    if (!(await webgpuAvailable())) {
      throw new Error(
        'Cannot use backend "webgpu": navigator.gpu has no adapter here (or MEMPO_SKIP_WEBGPU=1). Install a Vulkan driver ' +
          "(on Debian: apt-get install mesa-vulkan-drivers for a software one) or pick --backend wasm",
      );
    }
    await import("@tensorflow/tfjs-backend-webgpu");
  }
  if (name === "wasm") {
    await startWasm(tf, wasm, options.threads ?? wasmThreads() ?? threadsFromEnv());
    return name;
  }
  if ((name === "tensorflow" || name === "tensorflow-gpu") && tf.findBackendFactory("tensorflow") === null) {
    await loadNodeBackend(name);
  }
  // tfjs-node and tfjs-node-gpu both register themselves as "tensorflow".
  const registered = name === "tensorflow-gpu" ? "tensorflow" : name;
  const ok = await tf.setBackend(registered);
  if (!ok) throw new Error(`Cannot use backend "${name}": TensorFlow.js failed to initialise it`);
  await tf.ready();
  return name;
}

/**
 * Frees an inactive backend: disposes its tensors and kernels' state and, for
 * `webgpu`, destroys its `GPUDevice`, so no GPU work or driver thread outlives
 * its use. The backend stays registered: a later {@linkcode setBackend} builds
 * it afresh. A backend that was never initialised is left as it is. Tensors
 * still held on it become unusable: read and dispose them first.
 *
 * Why: a process that ends with a live device leaves the driver's threads
 * (Mesa's lavapipe runs several) to race the process's exit handlers.
 *
 * Source: TensorFlow.js `tf.removeBackend`, `tf.registerBackend`;
 * WebGPU `GPUDevice.destroy` (W3C WebGPU §4.4).
 *
 * @param name The backend to free; must not be the active one.
 * @returns `true` when an initialised backend was freed.
 *
 * @example Freeing the reference backend after a comparison
 * ```ts
 * import assert from "node:assert/strict";
 * import { releaseBackend, setBackend } from "./backend.ts";
 *
 * await setBackend("cpu");
 * await setBackend("wasm");
 * assert.equal(await releaseBackend("cpu"), true);
 * assert.equal(await releaseBackend("cpu"), false); // nothing left to free
 * assert.equal(await setBackend("cpu"), "cpu"); // rebuilt on demand
 * await setBackend("wasm");
 * ```
 */
export async function releaseBackend(name: BackendName): Promise<boolean> {
  const registered = name === "tensorflow-gpu" ? "tensorflow" : name;
  if (tf.getBackend() === registered) {
    throw new Error(
      `Cannot release backend: name is the active backend, current value is ${JSON.stringify(name)}; ` +
        "setBackend() another one first",
    );
  }
  const engine = tf.engine() as unknown as {
    registry: Record<string, { device?: { destroy(): void; queue: { onSubmittedWorkDone(): Promise<void> } } }>;
    registryFactory: Record<string, { factory: () => tf.KernelBackend; priority: number } | undefined>;
  };
  const instance = engine.registry[registered];
  const entry = engine.registryFactory[registered];
  if (instance === undefined || entry === undefined) return false;
  await instance.device?.queue.onSubmittedWorkDone(); // no GPU work in flight when the device goes
  tf.removeBackend(registered); // disposes the instance and unregisters the factory
  instance.device?.destroy();
  tf.registerBackend(registered, entry.factory, entry.priority);
  return true;
}

/**
 * The name of the active backend.
 *
 * Source: TensorFlow.js `tf.getBackend`.
 *
 * @returns The active backend's name, e.g. `"wasm"`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { getBackend } from "./backend.ts";
 *
 * assert.equal(getBackend(), "wasm");
 * ```
 */
export function getBackend(): BackendName {
  return tf.getBackend() as BackendName;
}

/**
 * Threads of the running `wasm` backend's matrix products, or `undefined`
 * when it is not running (released, or never started).
 *
 * Source: tfjs-backend-wasm `getThreadsCount`.
 *
 * @returns The count (1 for the single-threaded build).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { wasmThreads } from "./backend.ts";
 *
 * assert.ok(wasmThreads()! >= 1);
 * ```
 */
export function wasmThreads(): number | undefined {
  const engine = tf.engine() as unknown as { registry: Record<string, unknown> };
  return engine.registry.wasm === undefined ? undefined : wasm.getThreadsCount();
}
