import { tf } from "../../lib/tf.ts";
import { registerWasmKernels } from "../../lib/wasm/wasm_kernels.ts";
import { assertAllClose } from "../../lib/testing/all_close.ts";
import { assertNoTensorLeak, onBackends, parityBackends } from "../_helpers.ts";
import assert from "node:assert/strict";
import { createRng } from "../../lib/random.ts";
import { setBackend } from "../../lib/backend.ts";

Deno.test("UnsortedSegmentSum on wasm sums rows by segment; agrees across backends", async () => {
  registerWasmKernels(tf); // idempotent
  const results = await onBackends(await parityBackends(), () =>
    tf.tidy(() => ({
      out: tf.unsortedSegmentSum(tf.tensor2d([[1, 2], [3, 4], [5, 6], [7, 8]]), tf.tensor1d([2, 0, 2, 1], "int32"), 4),
    })));
  for (const [name, r] of results) assertAllClose(r.out, [[3, 4], [7, 8], [6, 8], [0, 0]], { msg: name });
});

Deno.test("UnsortedSegmentSum on wasm drops out-of-range ids like cpu (TensorFlow semantics)", async () => {
  const results = await onBackends(["wasm", "cpu"], () =>
    tf.tidy(() => ({
      out: tf.unsortedSegmentSum(tf.tensor2d([[1, 2], [3, 4], [5, 6], [7, 8]]), tf.tensor1d([2, 0, 2, 5], "int32"), 3),
    })));
  for (const [name, r] of results) assertAllClose(r.out, [[3, 4], [0, 0], [6, 8]], { msg: name });
});

Deno.test("the gradient of an embedding gather trains on wasm; agrees across backends", async () => {
  const table = [[1, 2, 3], [4, 5, 6], [7, 8, 9], [1, 0, 1]];
  const ids = [[1, 2], [1, 3]];
  const results = await onBackends(await parityBackends(), () =>
    tf.tidy(() => {
      const f = (e: tf.Tensor) => tf.sum(tf.square(tf.gather(e, tf.tensor2d(ids, undefined, "int32"))));
      return { grad: tf.grad(f)(tf.tensor2d(table)) };
    }));
  const expected = [[0, 0, 0], [16, 20, 24], [14, 16, 18], [2, 0, 2]];
  for (const [name, r] of results) assertAllClose(r.grad, expected, { msg: name });
  assertNoTensorLeak(() => tf.tidy(() => tf.grad((e: tf.Tensor) => tf.sum(tf.gather(e, [0, 0])))(tf.tensor2d(table))));
  assert.equal(tf.getBackend(), "wasm");
});

Deno.test("Transpose on wasm (JS tiles for some matrices, the rest built in) equals cpu's on 300 random shapes and permutations, both dtypes", async () => {
  const rng = createRng(3);
  const cases = Array.from({ length: 300 }, () => {
    const rank = 1 + rng.int(5);
    // size-1 axes, long axes (tiles cut at 64) and the model's shapes all occur
    const shape = Array.from({ length: rank }, () => 1 + rng.int(rng.int(2) ? 3 : 140));
    while (shape.reduce((a, b) => a * b, 1) > 50_000) shape[shape.indexOf(Math.max(...shape))]! >>= 1;
    const perm = [...Array(rank).keys()];
    for (let i = rank - 1; i > 0; i--) {
      const j = rng.int(i + 1);
      [perm[i], perm[j]] = [perm[j]!, perm[i]!];
    }
    return { shape, perm, dtype: rng.int(4) === 0 ? "int32" as const : "float32" as const };
  });
  cases.push({ shape: [8, 256, 4, 32], perm: [0, 2, 1, 3], dtype: "float32" });
  cases.push({ shape: [8, 4, 256, 32], perm: [0, 1, 3, 2], dtype: "float32" });
  cases.push({ shape: [130, 70], perm: [1, 0], dtype: "float32" }); // a matrix the built-in keeps
  // the JS path: row counts that are multiples of 128, at least 16,384 elements, tiles cut at 64
  cases.push({ shape: [128, 128], perm: [1, 0], dtype: "float32" });
  cases.push({ shape: [384, 70], perm: [1, 0], dtype: "float32" });
  cases.push({ shape: [256, 200], perm: [1, 0], dtype: "int32" });
  // batches of such matrices (attention's [B·H, T, S] probabilities), and batches the built-in keeps
  cases.push({ shape: [3, 256, 128], perm: [0, 2, 1], dtype: "float32" });
  cases.push({ shape: [2, 128, 200], perm: [0, 2, 1], dtype: "int32" });
  cases.push({ shape: [3, 256, 32], perm: [0, 2, 1], dtype: "float32" });
  cases.push({ shape: [2, 128, 128], perm: [1, 0, 2], dtype: "float32" });
  const run = async (backend: "cpu" | "wasm") => {
    await setBackend(backend);
    return cases.map(({ shape, perm, dtype }) =>
      tf.tidy(() => {
        const size = shape.reduce((a, b) => a * b, 1);
        const y = tf.transpose(tf.tensor(Array.from({ length: size }, (_, i) => i - 7), shape, dtype), perm);
        return { shape: y.shape, dtype: y.dtype, values: Array.from(y.dataSync()) };
      })
    );
  };
  const want = await run("cpu");
  const got = await run("wasm");
  cases.forEach((c, i) => assert.deepEqual(got[i], want[i], JSON.stringify({ shape: c.shape, perm: c.perm })));
  // the backend's own kernels that transpose internally (a sum over a leading axis) still work
  assertAllClose(tf.sum(tf.tensor3d([[[1, 2], [3, 4]], [[5, 6], [7, 8]]]), 0), [[6, 8], [10, 12]]);
  assertNoTensorLeak(() => tf.tidy(() => tf.transpose(tf.ones([3, 4, 5]), [2, 0, 1])));
});

Deno.test("GatherV2 on wasm (row copies) equals cpu's on 200 random shapes, axes and index shapes, both dtypes; a bad index throws", async () => {
  const rng = createRng(5);
  const cases = Array.from({ length: 200 }, () => {
    const rank = 1 + rng.int(4);
    const shape = Array.from({ length: rank }, () => 1 + rng.int(rng.int(2) ? 3 : 40));
    const axis = rng.int(rank);
    const indexShape = Array.from({ length: rng.int(3) }, () => 1 + rng.int(6));
    const n = indexShape.reduce((a, b) => a * b, 1);
    const indices = Array.from({ length: n }, () => rng.int(shape[axis]!));
    return { shape, axis, indexShape, indices, dtype: rng.int(4) === 0 ? "int32" as const : "float32" as const };
  });
  // the model's two: an embedding lookup [B, T] of a table, a 1-D read of a flat log-softmax
  cases.push({ shape: [512, 128], axis: 0, indexShape: [4, 16], indices: [], dtype: "float32" });
  cases.push({ shape: [3 * 5 * 7], axis: 0, indexShape: [15], indices: [], dtype: "float32" });
  for (const c of cases.slice(-2)) {
    const n = c.indexShape.reduce((a, b) => a * b, 1);
    c.indices = Array.from({ length: n }, () => rng.int(c.shape[0]!));
  }
  const run = async (backend: "cpu" | "wasm") => {
    await setBackend(backend);
    return cases.map(({ shape, axis, indexShape, indices, dtype }) =>
      tf.tidy(() => {
        const size = shape.reduce((a, b) => a * b, 1);
        const x = tf.tensor(Array.from({ length: size }, (_, i) => i * 0.5 - 7), shape, dtype);
        const y = tf.gather(x, tf.tensor(indices, indexShape, "int32"), axis);
        return { shape: y.shape, dtype: y.dtype, values: Array.from(y.dataSync()) };
      })
    );
  };
  const want = await run("cpu");
  const got = await run("wasm");
  cases.forEach((c, i) => assert.deepEqual(got[i], want[i], JSON.stringify({ shape: c.shape, axis: c.axis })));
  assert.throws(
    () => tf.tidy(() => tf.gather(tf.tensor2d([[1, 2], [3, 4]]), tf.tensor1d([1, 2], "int32"))),
    /GatherV2: the index value 2 is not in \[0, 1\]/,
  );
  assertNoTensorLeak(() => {
    try {
      tf.tidy(() => tf.gather(tf.tensor2d([[1, 2], [3, 4]]), tf.tensor1d([-1], "int32")));
    } catch { /* refused */ }
  });
  assert.equal(tf.getBackend(), "wasm");
});

Deno.test("MempoPieceMatMul on wasm equals unstacking, 2-D matMuls and a stack bit for bit (1 and 2 threads); a fresh b is never served a cached operator; bad shapes are named", async () => {
  const { PIECE_MATMUL_KERNEL } = await import("../../lib/wasm/wasm_kernels.ts");
  const { wasmThreads } = await import("../../lib/backend.ts");
  const before = wasmThreads();
  const piece = (a: tf.Tensor, b: tf.Tensor) => tf.engine().runKernel(PIECE_MATMUL_KERNEL, { a, b }) as tf.Tensor;
  const stacked = (a: tf.Tensor, b: tf.Tensor) =>
    tf.tidy(() => {
      const bs = tf.unstack(b);
      return tf.stack(tf.unstack(a).map((x, i) => tf.matMul(x as tf.Tensor2D, bs[i] as tf.Tensor2D)));
    });
  try {
    for (const threads of [1, 2]) {
      await setBackend("wasm", { threads });
      for (const [N, M, K, P] of [[1, 3, 4, 5], [7, 33, 17, 9], [4, 256, 32, 256], [3, 256, 256, 32]]) {
        const a = tf.randomNormal([N!, M!, K!], 0, 1, "float32", 11);
        const b = tf.randomNormal([N!, K!, P!], 0, 1, "float32", 12);
        const got = piece(a, b);
        const want = stacked(a, b);
        const at = `[${N}, ${M}, ${K}] · [${N}, ${K}, ${P}] on ${threads} thread(s)`;
        assert.deepEqual(got.shape, [N, M, P], at);
        assert.deepEqual(Array.from(got.dataSync()), Array.from(want.dataSync()), at);
        // the same shapes, other values of b: the result follows the new b (no operator cached for a released id)
        const b2 = tf.mul(b, -2);
        const again = piece(a, b2);
        assertAllClose(again, tf.mul(want, -2), { rtol: 1e-6, atol: 1e-5, msg: at });
        tf.dispose([a, b, b2, got, want, again]);
      }
    }
  } finally {
    await setBackend("wasm", { threads: before });
  }
  assertNoTensorLeak(() => {
    const a = tf.ones([2, 3, 4]);
    const b = tf.ones([2, 4, 5]);
    tf.dispose([piece(a, b), a, b]);
  });
  assert.throws(
    () => tf.tidy(() => piece(tf.ones([2, 3, 4]), tf.ones([2, 5, 6]))),
    /MempoPieceMatMul: a \[N, M, K\] and b \[N, K, P\] must be float32 with matching N and K, current shapes are \[2,3,4\] \(float32\) and \[2,5,6\]/,
  );
});

Deno.test("MempoQkvHeads on wasm equals split, heads and MempoRope bit for bit (shared and per-row positions, one token and many); bad shapes are named", async () => {
  const { QKV_HEADS_KERNEL, ROPE_KERNEL } = await import("../../lib/wasm/wasm_kernels.ts");
  const [H, hd] = [4, 8];
  const D = H * hd;
  for (const [B, T, perRow] of [[2, 5, false], [3, 6, true], [2, 1, true], [1, 1, false]] as const) {
    const qkv = tf.randomNormal([B, T, 3 * D], 0, 2, "float32", 31);
    const shape = [perRow ? B : 1, 1, T, hd];
    const cos = tf.randomUniform(shape, -1, 1, "float32", 32);
    const sin = tf.randomUniform(shape, -1, 1, "float32", 33);
    const got = tf.engine().runKernel(QKV_HEADS_KERNEL, { qkv, cos, sin }, { heads: H }) as unknown as tf.Tensor[];
    const want = tf.tidy(() => {
      const heads = (x: tf.Tensor) => tf.transpose(tf.reshape(x, [B, T, H, hd]), [0, 2, 1, 3]);
      const [q, k, v] = tf.split(qkv, 3, -1).map(heads);
      const rope = (x: tf.Tensor) => tf.engine().runKernel(ROPE_KERNEL, { x, cos, sin }) as tf.Tensor;
      return [rope(q!), rope(k!), v!];
    });
    got.forEach((t, i) => {
      assert.deepEqual(t.shape, [B, H, T, hd]);
      assert.deepEqual(Array.from(t.dataSync()), Array.from(want[i]!.dataSync()), `${"qkv"[i]}, B ${B} T ${T}`);
    });
    tf.dispose([qkv, cos, sin, ...got, ...want]);
  }
  assert.throws(
    () =>
      tf.tidy(() =>
        tf.engine().runKernel(QKV_HEADS_KERNEL, {
          qkv: tf.zeros([1, 2, 96]),
          cos: tf.zeros([1, 1, 3, 8]),
          sin: tf.zeros([1, 1, 3, 8]),
        }, {
          heads: 4,
        })
      ),
    /MempoQkvHeads: qkv must be \[B, T, 3·H·hd\] \(hd even\) with cos and sin \[1 or B, 1, T, hd\], current shapes are \[1,2,96\] and \[1,1,3,8\] with 4 heads/,
  );
});

Deno.test("Identity on wasm shares the data (no copy), reference-counted: a clone outlives its source, a variable its value", () => {
  const backend = tf.backend() as unknown as { dataIdMap: { get(id: unknown): { memoryOffset: number } } };
  const before = tf.memory().numDataBuffers;
  const x = tf.tensor2d([[1, 2], [3, 4]]);
  const y = tf.clone(x);
  assert.equal(backend.dataIdMap.get(y.dataId).memoryOffset, backend.dataIdMap.get(x.dataId).memoryOffset);
  assert.equal(tf.memory().numDataBuffers - before, 1, "one buffer for a tensor and its clone");
  x.dispose();
  assertAllClose(y, [[1, 2], [3, 4]]); // still readable once its source is gone
  const v = tf.variable(y);
  y.dispose();
  const doubled = tf.mul(v, 2) as tf.Tensor2D;
  v.assign(doubled);
  doubled.dispose();
  assertAllClose(v, [[2, 4], [6, 8]]);
  v.dispose();
  assert.equal(tf.memory().numDataBuffers, before);
  // a custom gradient's saved tensors are such clones: gradients stay exact
  const f = tf.customGrad(
    ((a: tf.Tensor, save: tf.GradSaveFunc) => {
      save([a]);
      return { value: tf.square(a), gradFunc: (dy: tf.Tensor, [s]: tf.Tensor[]) => tf.mul(dy, tf.mul(s!, 2)) };
    }) as unknown as Parameters<typeof tf.customGrad>[0],
  );
  assertAllClose(tf.grad((a: tf.Tensor) => tf.sum(f(a) as tf.Tensor))(tf.tensor1d([1, -3])), [2, -6]);
});
