/**
 * Kernels that the TF.js 4.22 WebAssembly backend lacks, written in JS over
 * the backend's heap.
 *
 * - `UnsortedSegmentSum`: the gradient of `tf.gather` (embedding lookups)
 *   calls it, so without it no embedding can be trained on wasm.
 *
 * @module
 */
import type * as tfTypes from "@tensorflow/tfjs";

type TensorInfo = tfTypes.TensorInfo;
type TypedArray = Float32Array | Int32Array | Uint8Array;

/** The parts of `BackendWasm` a JS kernel needs (not exported by the package's types). */
interface WasmHeapBackend {
  makeOutput(shape: number[], dtype: tfTypes.DataType): TensorInfo;
  typedArrayFromHeap(t: TensorInfo): TypedArray;
}

function sizeOf(shape: readonly number[]): number {
  return shape.reduce((a, b) => a * b, 1);
}

/**
 * `out[segmentIds[i], ...] += x[i, ...]`; ids outside `[0, numSegments)` are
 * dropped, as in TensorFlow.
 */
function unsortedSegmentSum(
  args: { inputs: tfTypes.NamedTensorInfoMap; backend: unknown; attrs?: tfTypes.NamedAttrMap },
): TensorInfo {
  const x = args.inputs.x!;
  const segmentIds = args.inputs.segmentIds!;
  const numSegments = Number(args.attrs?.numSegments);
  const backend = args.backend as WasmHeapBackend;
  const outer = sizeOf(segmentIds.shape);
  const inner = outer === 0 ? 0 : sizeOf(x.shape) / outer;
  const outShape = [numSegments, ...x.shape.slice(segmentIds.shape.length)];
  // Allocate first: growing the wasm heap invalidates earlier typed-array views.
  const out = backend.makeOutput(outShape, x.dtype);
  const outValues = backend.typedArrayFromHeap(out);
  const xValues = backend.typedArrayFromHeap(x);
  const ids = backend.typedArrayFromHeap(segmentIds);
  outValues.fill(0);
  for (let i = 0; i < outer; i++) {
    const s = ids[i]!;
    if (s < 0 || s >= numSegments) continue;
    const src = i * inner;
    const dst = s * inner;
    for (let k = 0; k < inner; k++) outValues[dst + k]! += xValues[src + k]!;
  }
  return out;
}

/**
 * Registers the missing kernels on the `wasm` backend (idempotent).
 * `lib/tf.ts` calls it on import; call it yourself only for another tfjs instance.
 *
 * Source: TensorFlow `UnsortedSegmentSum` op semantics.
 * Reference: tfjs-backend-cpu `unsortedSegmentSum` kernel.
 *
 * @param tf The TensorFlow.js namespace.
 * @returns Nothing.
 *
 * @example Embedding gradients work on wasm
 * ```ts
 * import { tf } from "../tf.ts";
 * import { assertAllClose } from "../testing/all_close.ts";
 * import { registerWasmKernels } from "./wasm_kernels.ts";
 *
 * registerWasmKernels(tf);
 * const g = tf.grad((e: tf.Tensor) => tf.sum(tf.gather(e, [1, 1])))(tf.tensor2d([[1], [2]]));
 * assertAllClose(g, [[0], [2]]);
 * ```
 */
export function registerWasmKernels(tf: typeof tfTypes): void {
  if (tf.getKernel("UnsortedSegmentSum", "wasm") === undefined) {
    tf.registerKernel({
      kernelName: "UnsortedSegmentSum",
      backendName: "wasm",
      kernelFunc: unsortedSegmentSum as unknown as tfTypes.KernelFunc,
    });
  }
}
