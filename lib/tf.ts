/**
 * The package's only import of TensorFlow.js.
 *
 * Importing this module registers the embedded WebAssembly backend (with the
 * kernels that TF.js 4.22's wasm backend lacks, see `backend/wasm_kernels.ts`)
 * and makes it the active backend, on `MEMPO_THREADS` threads (default: every
 * core; see `backend/wasm_threads.ts`), so every module that does
 * `import { tf } from "./tf.ts"` can run tensor code synchronously right away.
 * Switch backends or thread counts with `setBackend` from `backend/backend.ts`.
 *
 * @module
 */
import * as tf from "@tensorflow/tfjs";
import * as wasm from "@tensorflow/tfjs-backend-wasm";
import { registerWasmKernels } from "./backend/wasm_kernels.ts";
import { startWasm, threadsFromEnv } from "./backend/wasm_threads.ts";

registerWasmKernels(tf);
tf.enableProdMode();
await startWasm(tf, wasm, threadsFromEnv());

export { tf };
