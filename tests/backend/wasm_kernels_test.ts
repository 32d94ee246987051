import { tf } from "../../lib/tf.ts";
import { registerWasmKernels } from "../../lib/backend/wasm_kernels.ts";
import { assertAllClose } from "../../lib/testing/all_close.ts";
import { assertNoTensorLeak, onBackends, parityBackends } from "../_helpers.ts";
import assert from "node:assert/strict";

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
