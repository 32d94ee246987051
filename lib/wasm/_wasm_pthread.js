// One pthread of the threaded wasm backend, run by `node:worker_threads` under Deno (started by
// lib/wasm/wasm_threads.ts). It hands the Emscripten worker glue of tfjs-backend-wasm the
// Node environment that glue expects, then evaluates it:
// - Deno's worker globals `self`, `location`, `onmessage` and `postMessage` are read-only; the
//   glue's Node branch assigns all four (`Object.assign(global, {...})`, `self.onmessage = …`);
// - `require`, `global` and `__filename` are CommonJS names the glue uses as free identifiers;
// - the glue's source is the package's own `wasm-out/…threaded-simd.worker.js` (a CommonJS file
//   that exports it as the string `wasmWorkerContents`), evaluated as tfjs does (its "\n" escapes
//   restored), so the main thread's "load" message (whose script path the loader rewrote to the
//   unbundled `wasm-out/tfjs-backend-wasm-threaded-simd.js`) runs the same glue the bundle embeds.
import { createRequire } from "node:module";
import { workerData } from "node:worker_threads";

const require = createRequire(import.meta.url);
for (const name of ["self", "location", "onmessage", "postMessage"]) {
  Object.defineProperty(globalThis, name, {
    value: globalThis[name],
    writable: true,
    configurable: true,
    enumerable: true,
  });
}
Object.assign(globalThis, { require, global: globalThis, __filename: workerData.mainScript });
const { wasmWorkerContents } = require(workerData.workerScript);
// the glue is a script of the package, evaluated at global scope as its own loader does
(0, eval)(wasmWorkerContents.replace(/\n/g, "\\n"));
