import assert from "node:assert/strict";
import { tf } from "../../lib/tf.ts";
import { clipByGlobalNorm } from "../../lib/tensor/clip_grad_norm.ts";
import { assertAllClose } from "../../lib/testing/all_close.ts";

Deno.test("clipByGlobalNorm() scales by maxNorm / ‖g‖ over all tensors, and not below the limit", () => {
  const grads = { a: tf.tensor1d([3, 0]), b: tf.tensor2d([[0, 4]]) };
  const out = clipByGlobalNorm(grads, 2.5);
  assertAllClose(out.norm, 5, { rtol: 1e-6 });
  assertAllClose(out.grads.a!, [1.5, 0], { rtol: 1e-5 });
  assertAllClose(out.grads.b!, [[0, 2]], { rtol: 1e-5 });
  const small = clipByGlobalNorm(grads, 10);
  assertAllClose(small.grads.a!, [3, 0]);
  tf.dispose([grads.a, grads.b, Object.values(out.grads), Object.values(small.grads), out.norm, small.norm]);
});

Deno.test("clipByGlobalNorm() handles empty input and rejects a bad maxNorm", () => {
  const empty = clipByGlobalNorm({}, 1);
  assert.deepEqual(empty.grads, {});
  assertAllClose(empty.norm, 0);
  const inf = clipByGlobalNorm({ a: tf.tensor1d([Infinity, 1]) }, 1);
  assertAllClose(inf.grads.a!, [Infinity, 1]); // non-finite: unscaled, the caller skips the step
  assert.throws(() => clipByGlobalNorm({}, 0), /maxNorm must be a positive finite number, current value is 0/);
});
