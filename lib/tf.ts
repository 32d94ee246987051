/**
 * The package's only import of TensorFlow.js.
 *
 * Importing this module registers the embedded WebAssembly backend (with the
 * kernels that TF.js 4.22's wasm backend lacks, see `backend/wasm_kernels.ts`)
 * and makes it the active backend, single-threaded, so every module that does
 * `import { tf } from "./tf.ts"` can run tensor code synchronously right away.
 * Switch backends with `setBackend` from `backend/backend.ts`.
 *
 * @module
 */
import * as tf from "@tensorflow/tfjs";
import "@tensorflow/tfjs-backend-wasm";
import { registerWasmKernels } from "./backend/wasm_kernels.ts";

tf.env().set("WASM_HAS_MULTITHREAD_SUPPORT", false);
registerWasmKernels(tf);
tf.enableProdMode();
await tf.setBackend("wasm");
await tf.ready();

export { tf };
