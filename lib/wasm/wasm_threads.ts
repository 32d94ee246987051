/**
 * The wasm backend on N threads under Deno: the one place that starts
 * tfjs-backend-wasm, single-threaded (`threads: 1`, the plain SIMD build) or
 * on its threaded-SIMD build, whose XNNPACK GEMM then runs on N cores.
 *
 * tfjs-backend-wasm 4.22 ships the threaded build but never starts it in a
 * Node-like runtime, and its Emscripten glue cannot start its workers under
 * Deno. Five runtime overrides make it run, with no edit to `node_modules`:
 *
 * 1. `WASM_HAS_MULTITHREAD_SUPPORT` is false whenever `IS_NODE` (Deno has
 *    `process.versions.node`): the flag is set through `tf.env()` first.
 * 2. The glue replaces the global `Worker` with `worker_threads.Worker` and
 *    starts its pthreads from a `blob:` URL, which Deno's `worker_threads`
 *    refuses. `Worker` becomes {@linkcode PthreadWorker}'s constructor, which
 *    starts `_wasm_pthread.js` (a `file:` URL) instead; module workers
 *    (`{type: "module"}`, the only kind Deno has) still get Deno's `Worker`.
 * 3. The script the glue hands each worker is the bundle's factory as text,
 *    which names bundle-internal variables: the "load" message is rewritten to
 *    the package's unbundled `wasm-out/tfjs-backend-wasm-threaded-simd.js`.
 * 4. XNNPACK's pool is `emscripten_num_logical_cores() / 2` threads, read from
 *    `os.cpus()`: while the backend starts, that reports `2·N` cores.
 * 5. The glue pre-creates 8 workers and takes them with `pop()`: only the last
 *    N − 1 are real (the pool's threads beside the main one; ~12 MB each),
 *    the first ones answer "loaded" and are never used. Workers never hold the
 *    process open (the glue `ref()`s them while XNNPACK's threads, which never
 *    end, are running), so a process exits when its work is done.
 *
 * Only 2-D matMul without transpose flags at batch 1 reaches XNNPACK; every
 * other kernel runs on the calling thread, so the model keeps to that path.
 * Results are bit-identical across thread counts (XNNPACK splits the output,
 * not the reduction): `tests/wasm/wasm_threads_test.ts` checks a training
 * run's losses and gradients.
 *
 * Source: Emscripten pthreads (`PTHREAD_POOL_SIZE`, `library_pthread.js`);
 * XNNPACK / pthreadpool; tfjs-backend-wasm 4.22.0 `dist/tf-backend-wasm.node.js`.
 *
 * @module
 */
import type * as tfTypes from "@tensorflow/tfjs";
import os from "node:os";
import { createRequire } from "node:module";
import { Worker as NodeWorker } from "node:worker_threads";
import { DataError, UsageError } from "../errors.ts";
import { integerSetting } from "../integer_setting.ts";

/** The tfjs-backend-wasm version whose glue the overrides below are written against. */
export const PINNED_WASM_VERSION = "4.22.0";

/**
 * What the loader relies on in `dist/tf-backend-wasm.node.js`, the file Deno
 * loads; `checkWasmGlue` fails with the first one missing.
 */
export const WASM_GLUE_MARKERS: readonly { readonly what: string; readonly text: string }[] = Object.freeze([
  { what: "the threads flag is off in Node-like runtimes", text: "if (ENV.get('IS_NODE')) {" },
  {
    what: "the glue sets the global Worker to worker_threads'",
    text: "commonjsGlobal.Worker = nodeWorkerThreads.Worker;",
  },
  { what: "the glue pre-creates 8 pthread workers", text: "var pthreadPoolSize = 8;" },
  {
    what: "workers start from the located worker script",
    text: 'locateFile("tfjs-backend-wasm-threaded-simd.worker.js"); worker = new Worker(pthreadMainJs);',
  },
  { what: "the glue takes workers with pop()", text: "return PThread.unusedWorkers.pop();" },
  {
    what: 'the "load" message carries the main script',
    text: '"urlOrBlob": Module["mainScriptUrlOrBlob"] || _scriptDir',
  },
  { what: "the core count is read from os.cpus()", text: "return require$$4.cpus().length;" },
  { what: "the threads are counted at init", text: "_this.wasm.tfjs.initWithThreadsCount(threadsCount);" },
]);

/** The package's files the pthreads load (resolved from this module, as Deno installed the package). */
function packageFiles(): { dist: string; workerScript: string; mainScript: string } {
  const require = createRequire(import.meta.url);
  const pkg = require.resolve("@tensorflow/tfjs-backend-wasm/package.json").replace(/package\.json$/, "");
  return {
    dist: `${pkg}dist/tf-backend-wasm.node.js`,
    workerScript: `${pkg}wasm-out/tfjs-backend-wasm-threaded-simd.worker.js`,
    mainScript: `${pkg}wasm-out/tfjs-backend-wasm-threaded-simd.js`,
  };
}

/**
 * Checks that the installed tfjs-backend-wasm is the version and glue the
 * loader was written against, so a changed package fails with what changed
 * rather than a deadlock or a silent single thread.
 *
 * Source: tfjs-backend-wasm 4.22.0 `dist/tf-backend-wasm.node.js` (the markers of {@linkcode WASM_GLUE_MARKERS}).
 *
 * @param version The installed package's `version_wasm`.
 * @param glue The text of its `dist/tf-backend-wasm.node.js` (read from the installed package when omitted).
 * @returns Nothing; throws a `DataError` (an installed component that does not fit) naming the version or the
 *   missing piece of glue.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkWasmGlue } from "./wasm_threads.ts";
 *
 * checkWasmGlue("4.22.0"); // the installed package
 * assert.throws(() => checkWasmGlue("4.23.0"), /pinned to tfjs-backend-wasm 4\.22\.0, found 4\.23\.0/);
 * assert.throws(() => checkWasmGlue("4.22.0", "var pthreadPoolSize = 4;"), /no longer has: the threads flag/);
 * ```
 */
export function checkWasmGlue(version: string, glue?: string): void {
  if (version !== PINNED_WASM_VERSION) {
    throw new DataError(
      `The threaded wasm loader (lib/wasm/wasm_threads.ts) is pinned to tfjs-backend-wasm ${PINNED_WASM_VERSION}, ` +
        `found ${version}: pin the version in deno.json or port the loader (or run with --threads 1)`,
    );
  }
  const text = glue ?? Deno.readTextFileSync(packageFiles().dist);
  for (const { what, text: marker } of WASM_GLUE_MARKERS) {
    if (!text.includes(marker)) {
      throw new DataError(
        `The threaded wasm loader relies on tfjs-backend-wasm's glue, which no longer has: ${what} ` +
          `(${JSON.stringify(marker)} in dist/tf-backend-wasm.node.js); port lib/wasm/wasm_threads.ts ` +
          "(or run with --threads 1)",
      );
    }
  }
}

/**
 * The thread count asked for by the environment: `MEMPO_THREADS` when set,
 * else the machine's core count (`navigator.hardwareConcurrency`).
 *
 * Source: the `OMP_NUM_THREADS` / `torch.set_num_threads` convention (an environment variable, default all cores).
 *
 * @param value The variable's value (`Deno.env.get("MEMPO_THREADS")` when omitted).
 * @returns An integer ≥ 1; throws a `UsageError` (a `RangeError`) naming the variable and its value otherwise.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { threadsFromEnv } from "./wasm_threads.ts";
 *
 * assert.equal(threadsFromEnv("1"), 1);
 * assert.equal(threadsFromEnv(""), navigator.hardwareConcurrency);
 * assert.throws(() => threadsFromEnv("two"), /MEMPO_THREADS must be an integer ≥ 1, current value is "two"/);
 * ```
 */
export function threadsFromEnv(value?: string): number {
  return integerSetting("MEMPO_THREADS", { min: 1, fallback: Math.max(1, navigator.hardwareConcurrency || 1), value });
}

/** A pre-created worker slot the pool never takes: it answers "loaded" and does nothing else. */
class IdleSlot {
  onmessage: ((e: { data: unknown }) => void) | undefined;
  loaded = false;
  postMessage(message: { cmd?: string }): void {
    if (message?.cmd === "load") queueMicrotask(() => this.onmessage?.({ data: { cmd: "loaded" } }));
  }
  on(): void {}
  ref(): void {}
  unref(): void {}
  terminate(): void {}
}

/** Workers of the backend being started: how many slots stay idle, which real workers it made. */
const pool = { idleSlots: 0, made: [] as NodeWorker[] };

/**
 * What the glue's `new Worker(url)` returns: the next idle slot, or a real
 * `worker_threads` worker running `_wasm_pthread.js` whose "load" message
 * names the unbundled glue and which never holds the process open.
 */
function pthreadWorker(): IdleSlot | NodeWorker {
  if (pool.idleSlots > 0) {
    pool.idleSlots -= 1;
    return new IdleSlot();
  }
  const files = packageFiles();
  const worker = new NodeWorker(new URL("./_wasm_pthread.js", import.meta.url), {
    workerData: { workerScript: files.workerScript, mainScript: files.mainScript },
  });
  const post = worker.postMessage.bind(worker);
  const patched = worker as NodeWorker & { postMessage: (m: unknown, t?: unknown) => void };
  patched.postMessage = (message: unknown, transfer?: unknown) => {
    const m = message as { cmd?: string };
    post(m?.cmd === "load" ? { ...m, urlOrBlob: files.mainScript } : message, transfer as never);
  };
  // referenced until it has loaded (the glue then unrefs it), never again: XNNPACK's threads never end, so a worker
  // that the glue references while running one (`runPthread`) would keep the process alive
  worker.ref = () => {};
  pool.made.push(worker);
  return worker;
}

let denoWorker: typeof Worker | undefined;

/** `Worker` for the glue (classic workers, which Deno lacks) and Deno's own for module workers. */
function installWorkerShim(): void {
  if (denoWorker !== undefined) return;
  denoWorker = globalThis.Worker;
  const original = denoWorker;
  function PthreadWorker(url: string | URL, options?: WorkerOptions) {
    if (options?.type === "module") return new original(url, options);
    return pthreadWorker();
  }
  Object.defineProperty(globalThis, "Worker", {
    configurable: true,
    get: () => PthreadWorker,
    set: () => {}, // the glue's `global.Worker = worker_threads.Worker`
  });
}

interface WasmModuleExports {
  getThreadsCount(): number;
  version_wasm: string;
}

/**
 * Starts (or restarts) the `wasm` backend on `threads` threads and makes it
 * active. A restart with another count disposes the running instance (its
 * tensors become unusable: read and dispose them first) and ends its workers.
 *
 * Source: tfjs-backend-wasm `setThreadsCount` / `getThreadsCount`; Emscripten pthreads.
 *
 * @param tf The TensorFlow.js namespace (the one `lib/tf.ts` exports).
 * @param wasm The `@tensorflow/tfjs-backend-wasm` module.
 * @param threads Threads of the GEMM: 1 is the single-threaded SIMD build.
 * @returns The thread count the backend reports (equal to `threads`; anything else throws).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import * as wasm from "@tensorflow/tfjs-backend-wasm";
 * import { tf } from "../tf.ts";
 * import { startWasm } from "./wasm_threads.ts";
 *
 * assert.equal(await startWasm(tf, wasm, 1), 1);
 * assert.equal(tf.getBackend(), "wasm");
 * ```
 */
export async function startWasm(
  tf: typeof tfTypes,
  wasm: WasmModuleExports,
  threads: number,
): Promise<number> {
  if (!Number.isInteger(threads) || threads < 1) {
    throw new RangeError(`Cannot start the wasm backend: threads must be an integer ≥ 1, current value is ${threads}`);
  }
  const engine = tf.engine() as unknown as {
    registry: Record<string, unknown>;
    registryFactory: Record<string, { factory: () => tfTypes.KernelBackend; priority: number } | undefined>;
  };
  if (engine.registry.wasm !== undefined) {
    if (wasm.getThreadsCount() === threads) {
      await tf.setBackend("wasm");
      return threads;
    }
    const entry = engine.registryFactory.wasm!;
    const previous = pool.made.splice(0);
    tf.removeBackend("wasm"); // disposes the instance: its pool's threads are terminated
    for (const w of previous) void w.terminate();
    tf.registerBackend("wasm", entry.factory, entry.priority);
  }
  if (threads > 1) checkWasmGlue(wasm.version_wasm);
  tf.env().set("WASM_HAS_MULTITHREAD_SUPPORT", threads > 1);
  const cpus = os.cpus;
  if (threads > 1) {
    installWorkerShim();
    pool.idleSlots = Math.max(0, 8 - (threads - 1));
    const reported = cpus();
    const core = reported[0] ?? { model: "cpu", speed: 0, times: { user: 0, nice: 0, sys: 0, idle: 0, irq: 0 } };
    os.cpus = () => Array.from({ length: 2 * threads }, () => core);
  }
  try {
    const ok = await tf.setBackend("wasm");
    if (!ok) throw new Error("Cannot start the wasm backend: TensorFlow.js failed to initialise it");
    await tf.ready();
  } finally {
    os.cpus = cpus;
    pool.idleSlots = 0;
  }
  const got = wasm.getThreadsCount();
  if (got !== threads) {
    throw new Error(
      `Cannot start the wasm backend on ${threads} threads: it reports ${got} (port lib/wasm/wasm_threads.ts)`,
    );
  }
  return got;
}

/** Why {@linkcode startWasmFromEnv} could not start the backend as the environment asked (undefined when it could). */
let envStartError: UsageError | DataError | undefined;

/**
 * Starts the `wasm` backend on the threads the environment asks for
 * ({@linkcode threadsFromEnv}): what `lib/tf.ts` runs when it is imported,
 * before any task can catch an error. A bad `MEMPO_THREADS` or a threaded
 * build that does not fit the installed package is not thrown from the
 * import: it prints one warning line, the backend starts on 1 thread (the
 * plain SIMD build: the same numbers, slower), and the error is kept for
 * {@linkcode wasmEnvError}, which every task raises before its body (exit 2
 * or 1, one line, no stack trace).
 *
 * Source: the `OMP_NUM_THREADS` convention; POSIX exit codes (2: usage, 1: failure).
 *
 * @param tf The TensorFlow.js namespace.
 * @param wasm The `@tensorflow/tfjs-backend-wasm` module.
 * @param value The variable's value (`Deno.env.get("MEMPO_THREADS")` when omitted).
 * @param warn Where the warning goes. @default console.error
 * @returns The thread count started.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import * as wasm from "@tensorflow/tfjs-backend-wasm";
 * import { tf } from "../tf.ts";
 * import { startWasmFromEnv, wasmEnvError } from "./wasm_threads.ts";
 *
 * const lines: string[] = [];
 * assert.equal(await startWasmFromEnv(tf, wasm, "two", (l) => lines.push(l)), 1);
 * assert.match(lines[0]!, /^warning: MEMPO_THREADS must be an integer ≥ 1, current value is "two"; the wasm backend runs on 1 thread/);
 * assert.match(wasmEnvError()!.message, /MEMPO_THREADS must be an integer/);
 * assert.equal(await startWasmFromEnv(tf, wasm, "1"), 1);
 * assert.equal(wasmEnvError(), undefined);
 * ```
 */
export async function startWasmFromEnv(
  tf: typeof tfTypes,
  wasm: WasmModuleExports,
  value?: string,
  warn: (line: string) => void = (line) => console.error(line),
): Promise<number> {
  try {
    const threads = await startWasm(tf, wasm, threadsFromEnv(value));
    envStartError = undefined;
    return threads;
  } catch (e) {
    if (!(e instanceof UsageError || e instanceof DataError)) throw e;
    envStartError = e;
    warn(`warning: ${e.message}; the wasm backend runs on 1 thread`);
    return await startWasm(tf, wasm, 1);
  }
}

/**
 * The error that kept {@linkcode startWasmFromEnv} from starting the backend
 * as the environment asked (a bad `MEMPO_THREADS`: a `UsageError`; a
 * threaded build that does not fit: a `DataError`), or undefined. A task
 * throws it before its body unless `--threads` overrides the variable.
 *
 * Source: this package's task error path (`lib/cli/task.ts`).
 *
 * @returns The error, or undefined.
 *
 * @example
 * ```ts
 * import { wasmEnvError } from "./wasm_threads.ts";
 *
 * console.assert(wasmEnvError() === undefined || wasmEnvError() instanceof Error);
 * ```
 */
export function wasmEnvError(): UsageError | DataError | undefined {
  return envStartError;
}
