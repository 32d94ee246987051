/**
 * The package's only import of TensorFlow.js.
 *
 * Importing this module registers the embedded WebAssembly backend (with the
 * kernels that TF.js 4.22's wasm backend lacks, see `wasm/wasm_kernels.ts`)
 * and makes it the active backend, on `MEMPO_THREADS` threads (default: every
 * core; see `wasm/wasm_threads.ts`; a bad value warns and starts 1
 * thread), so every module that does
 * `import { tf } from "./tf.ts"` can run tensor code synchronously right away.
 * Switch backends or thread counts with `setBackend` from `backend.ts`.
 *
 * @module
 */
import * as tf from "@tensorflow/tfjs";
import * as wasm from "@tensorflow/tfjs-backend-wasm";
import { registerWasmKernels } from "./wasm/wasm_kernels.ts";
import { startWasmFromEnv } from "./wasm/wasm_threads.ts";

registerWasmKernels(tf);
tf.enableProdMode();
// a bad MEMPO_THREADS is not thrown from this import (no task could catch it): a warning, 1 thread, and every
// task then refuses it as a usage error (lib/cli/task.ts)
await startWasmFromEnv(tf, wasm);

export { tf };
