/**
 * Kernels that the TF.js 4.22 WebAssembly backend lacks, written in JS over
 * the backend's heap.
 *
 * - `UnsortedSegmentSum`: the gradient of `tf.gather` (embedding lookups)
 *   calls it, so without it no embedding can be trained on wasm.
 * - `Slice`, `Unpack`, `SplitV`: the built-ins copy the whole input per slice.
 * - `GatherV2` without batch dimensions (embedding lookups, the log-prob
 *   read): the built-in copies element by element (an 8,192-row lookup of
 *   the bench's 512 × 128 embedding took it 60 ms, row copies 1 ms).
 * - `Identity` (`tf.clone`, and every tensor a custom gradient saves for
 *   its backward pass): the built-in copies the data; here the clone shares
 *   it, reference-counted, as the cpu backend's does (kernels never write
 *   their inputs, so shared data is never changed under a tensor).
 * - `MempoRope` (new): rotary embedding of interleaved pairs in one kernel,
 *   `y = x ⊙ cos + rot(x) ⊙ sin` with `rot(x₀, x₁) = (−x₁, x₀)`, each product
 *   and the sum rounded to float32 as the three built-in kernels it
 *   replaces round them, so the values are the same bit for bit.
 * - `MempoRmsNorm` (new): `x · rsqrt(mean(x²) + ε) · w` over the last axis
 *   in one kernel, summing in order in float32 as the built-in Mean does, so
 *   the values equal the six kernels it replaces bit for bit (passes without
 *   gradients only: decoding and scoring).
 * - `MempoPieceMatMul` (new): `a[n] · b[n]` for a batch of matrices as N
 *   2-D products on XNNPACK (the built-in runs batched products in a scalar
 *   loop) that read their operands and write their output in place in the
 *   batch tensors, where unstacking and stacking would copy them: each piece
 *   is the built-in `BatchMatMul` of batch 1 on a temporary tensor id the
 *   backend's C++ side registers at the piece's offset and releases after
 *   (with the XNNPACK operator it caches for it), so the values are those of
 *   the 2-D products bit for bit.
 * - `MempoQkvHeads` (new): the fused q|k|v product's output `[B, T, 3D]`
 *   split into `[B, H, T, hd]` heads with RoPE on q and k, in one pass where
 *   a split, three transposes and two RoPE kernels took five; each value
 *   is `MempoRope`'s bit for bit (passes without gradients only).
 * - `Transpose` of matrices (and batches of matrices, as attention's
 *   `[B·H, T, S]` probabilities) whose row count is a multiple of 128: the
 *   built-in's writes collide in the cache there (4–8× slower than JS tiles);
 *   every other transpose stays with it.
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
  incRef(dataId: unknown): void;
  dataIdMap: { get(dataId: unknown): { id: number; memoryOffset: number } };
  dataIdNextNumber: number;
  wasm: {
    cwrap(name: string, returns: null, args: string[]): (...args: unknown[]) => void;
    tfjs: {
      registerTensor(id: number, size: number, memoryOffset: number): void;
      disposeData(id: number): void;
    };
  };
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

type SliceFn = (
  x: TensorInfo,
  begin: number[],
  size: number[],
  backend: WasmHeapBackend,
  outShape?: number[],
) => TensorInfo;

/** Copies `x[begin : begin + size]` into a new output, reading a heap view (no full copy). */
const sliceView: SliceFn = (x, begin, size, backend, outShape) => {
  const out = backend.makeOutput(size, x.dtype);
  const outValues = backend.typedArrayFromHeap(out);
  const xValues = backend.typedArrayFromHeap(x);
  const rank = x.shape.length;
  const strides = new Array<number>(rank).fill(1);
  for (let i = rank - 2; i >= 0; i--) strides[i] = strides[i + 1]! * x.shape[i + 1]!;
  // the longest contiguous tail: axes after `a` are taken whole
  let a = rank - 1;
  while (a > 0 && size[a] === x.shape[a]) a--;
  const run = size.slice(a).reduce((p, q) => p * q, 1);
  const outer = size.slice(0, a);
  const count = outer.reduce((p, q) => p * q, 1);
  const idx = new Array<number>(a).fill(0);
  for (let n = 0, dst = 0; n < count; n++, dst += run) {
    let src = begin[a]! * strides[a]!;
    for (let j = 0; j < a; j++) src += (begin[j]! + idx[j]!) * strides[j]!;
    outValues.set(xValues.subarray(src, src + run), dst);
    for (let j = a - 1; j >= 0; j--) {
      if (++idx[j]! < outer[j]!) break;
      idx[j] = 0;
    }
  }
  return outShape === undefined ? out : { ...out, shape: outShape };
};

/**
 * `x` gathered along `axis` at `indices` (no batch dimensions): each index
 * copies a run of `x.shape[axis+1:]` per outer position, so the output is
 * `x.shape[:axis] ++ indices.shape ++ x.shape[axis+1:]`. An index outside
 * `[0, x.shape[axis])` throws with the built-in's message.
 */
function gatherRows(x: TensorInfo, indices: TensorInfo, axis: number, backend: WasmHeapBackend): TensorInfo {
  const dim = x.shape[axis]!;
  const outer = sizeOf(x.shape.slice(0, axis));
  const inner = sizeOf(x.shape.slice(axis + 1));
  const outShape = [...x.shape.slice(0, axis), ...indices.shape, ...x.shape.slice(axis + 1)];
  const out = backend.makeOutput(outShape, x.dtype);
  const dst = backend.typedArrayFromHeap(out);
  const src = backend.typedArrayFromHeap(x);
  const ids = backend.typedArrayFromHeap(indices);
  const n = ids.length;
  for (let i = 0; i < n; i++) {
    const index = ids[i]!;
    if (!(index >= 0 && index <= dim - 1)) {
      throw new Error(`GatherV2: the index value ${index} is not in [0, ${dim - 1}]`);
    }
  }
  for (let o = 0; o < outer; o++) {
    const from = o * dim * inner;
    const to = o * n * inner;
    if (inner === 1) {
      for (let i = 0; i < n; i++) dst[to + i] = src[from + ids[i]!]!;
      continue;
    }
    for (let i = 0; i < n; i++) {
      const at = from + ids[i]! * inner;
      dst.set(src.subarray(at, at + inner), to + i * inner);
    }
  }
  return out;
}

/**
 * A 2-D transpose over heap views in 64 × 64 tiles, writing the output
 * contiguously, for the shapes where the backend's own `Transpose` is slow:
 * an `[r, c]` input with `r` a multiple of 128 (its output rows are then 512
 * bytes apart times a power of two, and its strided writes collide in the
 * cache). Measured here, µs per call (built-in / JS): 2048 × 128 1,683 / 221,
 * 1,024 × 128 822 / 111, 384 × 128 122 / 41, 128 × 128 43 / 15; but 1,600 ×
 * 128 62 / 175 and 2,000 × 128 76 / 215, so other shapes (and higher ranks,
 * and matrices under 16,384 elements) stay with the built-in.
 */
function transpose2d(x: TensorInfo, backend: WasmHeapBackend): TensorInfo {
  const [n, r, c] = (x.shape.length === 3 ? x.shape : [1, ...x.shape]) as [number, number, number];
  const out = backend.makeOutput(x.shape.length === 3 ? [n, c, r] : [c, r], x.dtype);
  const dst = backend.typedArrayFromHeap(out);
  const src = backend.typedArrayFromHeap(x);
  for (let b = 0; b < n; b++) {
    const base = b * r * c;
    for (let j0 = 0; j0 < c; j0 += 64) {
      const j1 = Math.min(c, j0 + 64);
      for (let i0 = 0; i0 < r; i0 += 64) {
        const i1 = Math.min(r, i0 + 64);
        for (let j = j0; j < j1; j++) {
          const o = base + j * r;
          for (let i = i0; i < i1; i++) dst[o + i] = src[base + i * c + j]!;
        }
      }
    }
  }
  return out;
}

/** The name of the batched product by 2-D pieces in place (wasm only). */
export const PIECE_MATMUL_KERNEL = "MempoPieceMatMul";

// the backend's BatchMatMul entry point (a_id, a_shape, a_rank, b_id, b_shape, b_rank, transpose_a, transpose_b,
// out_id), bound once per backend instance
const batchMatMulEntry = new WeakMap<object, (...args: unknown[]) => void>();

/** `a [N, M, K]`, `b [N, K, P]` → `[N, M, P]`: N batch-1 products of the built-in `BatchMatMul` in place. */
function pieceMatMulKernel(args: { inputs: tfTypes.NamedTensorInfoMap; backend: unknown }): TensorInfo {
  const { a, b } = args.inputs as Record<string, TensorInfo>;
  const backend = args.backend as WasmHeapBackend;
  const [N, M, K] = a!.shape as [number, number, number];
  const [Nb, Kb, P] = b!.shape as [number, number, number];
  if (a!.dtype !== "float32" || b!.dtype !== "float32" || Nb !== N || Kb !== K) {
    throw new TypeError(
      `${PIECE_MATMUL_KERNEL}: a [N, M, K] and b [N, K, P] must be float32 with matching N and K, current shapes are ` +
        `[${a!.shape}] (${a!.dtype}) and [${b!.shape}] (${b!.dtype})`,
    );
  }
  let entry = batchMatMulEntry.get(backend);
  if (entry === undefined) {
    entry = backend.wasm.cwrap("BatchMatMul", null, [
      "number",
      "array",
      "number",
      "number",
      "array",
      "number",
      "number",
      "number",
      "number",
    ]);
    batchMatMulEntry.set(backend, entry);
  }
  const out = backend.makeOutput([N, M, P], "float32");
  const base = [a!, b!, out].map((t) => backend.dataIdMap.get(t.dataId).memoryOffset);
  const aShape = new Uint8Array(new Int32Array([1, M, K]).buffer);
  const bShape = new Uint8Array(new Int32Array([1, K, P]).buffer);
  const { tfjs } = backend.wasm;
  for (let n = 0; n < N; n++) {
    const ids = [backend.dataIdNextNumber++, backend.dataIdNextNumber++, backend.dataIdNextNumber++];
    tfjs.registerTensor(ids[0]!, M * K, base[0]! + 4 * n * M * K);
    tfjs.registerTensor(ids[1]!, K * P, base[1]! + 4 * n * K * P);
    tfjs.registerTensor(ids[2]!, M * P, base[2]! + 4 * n * M * P);
    try {
      entry(ids[0], aShape, 3, ids[1], bShape, 3, false, false, ids[2]);
    } finally {
      for (const id of ids) tfjs.disposeData(id); // the C++ side only: the memory stays the batch tensors'
    }
  }
  return out;
}

/** The name of the q|k|v split into RoPE'd heads (wasm only, forward only). */
export const QKV_HEADS_KERNEL = "MempoQkvHeads";

/**
 * `qkv [B, T, 3D]` (q, k, v side by side), `cos`/`sin` `[1 or B, 1, T, hd]`, attr `heads` H →
 * `[RoPE(q), RoPE(k), v]`, each `[B, H, T, hd]` with `hd = D / H`.
 */
function qkvHeadsKernel(
  args: { inputs: tfTypes.NamedTensorInfoMap; backend: unknown; attrs?: tfTypes.NamedAttrMap },
): TensorInfo[] {
  const { qkv, cos, sin } = args.inputs as Record<string, TensorInfo>;
  const backend = args.backend as WasmHeapBackend;
  const H = Number(args.attrs?.heads);
  const [B, T, D3] = qkv!.shape as [number, number, number];
  const D = D3 / 3;
  const hd = D / H;
  if (
    qkv!.shape.length !== 3 || !Number.isInteger(D) || !Number.isInteger(hd) || hd % 2 !== 0 ||
    cos!.shape.at(-1) !== hd || cos!.shape.at(-2) !== T || (cos!.shape[0] !== 1 && cos!.shape[0] !== B)
  ) {
    throw new TypeError(
      `${QKV_HEADS_KERNEL}: qkv must be [B, T, 3·H·hd] (hd even) with cos and sin [1 or B, 1, T, hd], current shapes ` +
        `are [${qkv!.shape}] and [${cos!.shape}] with ${H} heads`,
    );
  }
  const perRow = cos!.shape[0] === B && B > 1;
  const outs = [0, 1, 2].map(() => backend.makeOutput([B, H, T, hd], "float32"));
  const [q, k, v] = outs.map((o) => backend.typedArrayFromHeap(o) as Float32Array) as [
    Float32Array,
    Float32Array,
    Float32Array,
  ];
  const xs = backend.typedArrayFromHeap(qkv!) as Float32Array;
  const cs = backend.typedArrayFromHeap(cos!) as Float32Array;
  const ss = backend.typedArrayFromHeap(sin!) as Float32Array;
  const f = Math.fround;
  for (let b = 0; b < B; b++) {
    const tBase = perRow ? b * T * hd : 0;
    for (let t = 0; t < T; t++) {
      const src = (b * T + t) * D3;
      const c0 = tBase + t * hd;
      for (let h = 0; h < H; h++) {
        const dst = ((b * H + h) * T + t) * hd;
        const sq = src + h * hd;
        const sk = sq + D;
        const sv = sk + D;
        for (let d = 0; d < hd; d += 2) {
          const c = cs[c0 + d]!, c1 = cs[c0 + d + 1]!, s = ss[c0 + d]!, s1 = ss[c0 + d + 1]!;
          const q0 = xs[sq + d]!, q1 = xs[sq + d + 1]!, k0 = xs[sk + d]!, k1 = xs[sk + d + 1]!;
          q[dst + d] = f(q0 * c) + f(-q1 * s);
          q[dst + d + 1] = f(q1 * c1) + f(q0 * s1);
          k[dst + d] = f(k0 * c) + f(-k1 * s);
          k[dst + d + 1] = f(k1 * c1) + f(k0 * s1);
          v[dst + d] = xs[sv + d]!;
          v[dst + d + 1] = xs[sv + d + 1]!;
        }
      }
    }
  }
  return outs;
}

/** The name of the fused RoPE kernel (wasm only; other backends compose it from built-in ops). */
export const ROPE_KERNEL = "MempoRope";

/** `x [B, H, T, hd]`, `cos`/`sin` `[1 or B, 1, T, hd]` → `x ⊙ cos + rot(x) ⊙ sin`. */
function ropeKernel(args: { inputs: tfTypes.NamedTensorInfoMap; backend: unknown }): TensorInfo {
  const { x, cos, sin } = args.inputs as Record<string, TensorInfo>;
  const backend = args.backend as WasmHeapBackend;
  const [B, H, T, hd] = x!.shape as [number, number, number, number];
  const perRow = cos!.shape[0] === B && B > 1;
  const out = backend.makeOutput(x!.shape, "float32");
  const y = backend.typedArrayFromHeap(out) as Float32Array;
  const xs = backend.typedArrayFromHeap(x!) as Float32Array;
  const cs = backend.typedArrayFromHeap(cos!) as Float32Array;
  const ss = backend.typedArrayFromHeap(sin!) as Float32Array;
  const f = Math.fround;
  for (let b = 0; b < B; b++) {
    for (let h = 0; h < H; h++) {
      const xBase = ((b * H + h) * T) * hd;
      const tBase = perRow ? b * T * hd : 0;
      for (let t = 0; t < T; t++) {
        const i0 = xBase + t * hd;
        const c0 = tBase + t * hd;
        for (let d = 0; d < hd; d += 2) {
          const x0 = xs[i0 + d]!;
          const x1 = xs[i0 + d + 1]!;
          y[i0 + d] = f(x0 * cs[c0 + d]!) + f(-x1 * ss[c0 + d]!);
          y[i0 + d + 1] = f(x1 * cs[c0 + d + 1]!) + f(x0 * ss[c0 + d + 1]!);
        }
      }
    }
  }
  return out;
}

/** The name of the fused RMSNorm kernel (wasm only, forward only). */
export const RMS_NORM_KERNEL = "MempoRmsNorm";

/** `x [..., D]`, `w [D]`, attr `eps` → `x · rsqrt(mean(x²) + eps) · w`. */
function rmsNormKernel(
  args: { inputs: tfTypes.NamedTensorInfoMap; backend: unknown; attrs?: tfTypes.NamedAttrMap },
): TensorInfo {
  const { x, weight } = args.inputs as Record<string, TensorInfo>;
  const eps = Math.fround(Number(args.attrs?.eps));
  const backend = args.backend as WasmHeapBackend;
  const D = x!.shape.at(-1)!;
  const rows = sizeOf(x!.shape) / D;
  const out = backend.makeOutput(x!.shape, "float32");
  const y = backend.typedArrayFromHeap(out) as Float32Array;
  const xs = backend.typedArrayFromHeap(x!) as Float32Array;
  const ws = backend.typedArrayFromHeap(weight!) as Float32Array;
  const f = Math.fround;
  // each row's sum of squares in order, four rows at a time (four independent chains of float32 adds: the same
  // bits as one row at a time, about 1.7× as fast)
  const sums = new Float32Array(rows);
  let r = 0;
  for (; r + 4 <= rows; r += 4) {
    const o0 = r * D, o1 = o0 + D, o2 = o1 + D, o3 = o2 + D;
    let s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    for (let i = 0; i < D; i++) {
      const x0 = xs[o0 + i]!, x1 = xs[o1 + i]!, x2 = xs[o2 + i]!, x3 = xs[o3 + i]!;
      s0 = f(s0 + f(x0 * x0));
      s1 = f(s1 + f(x1 * x1));
      s2 = f(s2 + f(x2 * x2));
      s3 = f(s3 + f(x3 * x3));
    }
    sums[r] = s0;
    sums[r + 1] = s1;
    sums[r + 2] = s2;
    sums[r + 3] = s3;
  }
  for (; r < rows; r++) {
    const o = r * D;
    let sum = 0;
    for (let i = 0; i < D; i++) sum = f(sum + f(xs[o + i]! * xs[o + i]!));
    sums[r] = sum;
  }
  for (let r = 0; r < rows; r++) {
    const o = r * D;
    const inv = f(1 / f(Math.sqrt(f(f(sums[r]! / D) + eps))));
    for (let i = 0; i < D; i++) y[o + i] = f(f(xs[o + i]! * inv) * ws[i]!);
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
  // a replaced kernel keeps the built-in's setupFunc: the backend's own kernels call the wasm functions it binds
  // (Sum and others transpose through the wasm Transpose that Transpose's setup binds)
  const register = (kernelName: string, kernelFunc: unknown) => {
    const builtIn = tf.getKernel(kernelName, "wasm");
    if (builtIn !== undefined) {
      if ((builtIn.kernelFunc as { mempo?: boolean }).mempo) return;
      tf.unregisterKernel(kernelName, "wasm");
    }
    (kernelFunc as { mempo?: boolean; builtIn?: unknown }).mempo = true;
    (kernelFunc as { mempo?: boolean; builtIn?: unknown }).builtIn = builtIn?.kernelFunc;
    tf.registerKernel({
      kernelName,
      backendName: "wasm",
      kernelFunc: kernelFunc as tfTypes.KernelFunc,
      ...(builtIn?.setupFunc === undefined ? {} : { setupFunc: builtIn.setupFunc }),
    });
  };
  register("UnsortedSegmentSum", unsortedSegmentSum);
  register(ROPE_KERNEL, ropeKernel);
  register(RMS_NORM_KERNEL, rmsNormKernel);
  register(PIECE_MATMUL_KERNEL, pieceMatMulKernel);
  register(QKV_HEADS_KERNEL, qkvHeadsKernel);
  const identityKernel = (args: { inputs: tfTypes.NamedTensorInfoMap; backend: unknown }): TensorInfo => {
    const x = args.inputs.x!;
    if (x.dtype === "string") {
      return ((identityKernel as { builtIn?: unknown }).builtIn as (a: typeof args) => TensorInfo)(args);
    }
    (args.backend as WasmHeapBackend).incRef(x.dataId);
    return { dataId: x.dataId, shape: x.shape, dtype: x.dtype };
  };
  register("Identity", identityKernel);
  const transposeKernel = (
    args: { inputs: tfTypes.NamedTensorInfoMap; backend: unknown; attrs: tfTypes.NamedAttrMap },
  ): TensorInfo => {
    const x = args.inputs.x!;
    const perm = args.attrs.perm as number[];
    // matrices (or a batch of them, perm [0, 2, 1]) whose row count is a multiple of 128
    const matrix = (x.shape.length === 2 && perm[0] === 1) ||
      (x.shape.length === 3 && perm[0] === 0 && perm[1] === 2);
    const [r, c] = x.shape.slice(-2) as [number, number];
    if (matrix && (x.dtype === "float32" || x.dtype === "int32") && r % 128 === 0 && r * c >= 16384) {
      return transpose2d(x, args.backend as WasmHeapBackend);
    }
    return ((transposeKernel as { builtIn?: unknown }).builtIn as (a: typeof args) => TensorInfo)(args);
  };
  register("Transpose", transposeKernel);
  const gatherKernel = (
    args: { inputs: tfTypes.NamedTensorInfoMap; backend: unknown; attrs: tfTypes.NamedAttrMap },
  ): TensorInfo => {
    const { x, indices } = args.inputs as Record<string, TensorInfo>;
    if (Number(args.attrs.batchDims ?? 0) !== 0 || x!.dtype === "string" || indices!.dtype !== "int32") {
      return ((gatherKernel as { builtIn?: unknown }).builtIn as (a: typeof args) => TensorInfo)(args);
    }
    const axis = tf.util.parseAxisParam(args.attrs.axis as number, x!.shape)[0]!;
    return gatherRows(x!, indices!, axis, args.backend as WasmHeapBackend);
  };
  register("GatherV2", gatherKernel);

  register("Slice", (args: { inputs: tfTypes.NamedTensorInfoMap; backend: unknown; attrs: tfTypes.NamedAttrMap }) => {
    const x = args.inputs.x!;
    const [begin, size] = tf.slice_util.parseSliceParams(
      x as unknown as tfTypes.Tensor,
      args.attrs.begin as number[],
      args.attrs.size as number[],
    );
    return sliceView(x, begin as number[], size as number[], args.backend as WasmHeapBackend);
  });
  register("Unpack", (args: { inputs: tfTypes.NamedTensorInfoMap; backend: unknown; attrs: tfTypes.NamedAttrMap }) => {
    const x = args.inputs.value!;
    const rank = x.shape.length;
    const axis = (args.attrs.axis as number) < 0 ? (args.attrs.axis as number) + rank : args.attrs.axis as number;
    const outShape = x.shape.filter((_, i) => i !== axis);
    const size = x.shape.slice();
    size[axis] = 1;
    return Array.from({ length: x.shape[axis]! }, (_, i) => {
      const begin = new Array<number>(rank).fill(0);
      begin[axis] = i;
      return sliceView(x, begin, size, args.backend as WasmHeapBackend, outShape);
    });
  });
  register("SplitV", (args: { inputs: tfTypes.NamedTensorInfoMap; backend: unknown; attrs: tfTypes.NamedAttrMap }) => {
    const x = args.inputs.x!;
    const axis = tf.util.parseAxisParam(args.attrs.axis as number, x.shape)[0]!;
    const sizes = tf.backend_util.prepareSplitSize(
      x as unknown as tfTypes.Tensor,
      args.attrs.numOrSizeSplits as number[] | number,
      axis,
    );
    const begin = new Array<number>(x.shape.length).fill(0);
    return sizes.map((s) => {
      const size = x.shape.slice();
      size[axis] = s;
      const out = sliceView(x, begin.slice(), size, args.backend as WasmHeapBackend);
      begin[axis]! += s;
      return out;
    });
  });
}
