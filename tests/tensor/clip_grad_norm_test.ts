import assert from "node:assert/strict";
import { tf } from "../../lib/tf.ts";
import { clipByGlobalNorm } from "../../lib/tensor/clip_grad_norm.ts";
import { assertAllClose } from "../../lib/testing/all_close.ts";
import { onBackends, parityBackends } from "../_helpers.ts";

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

Deno.test("clipByGlobalNorm() over 40 tensors (a model's worth) agrees across backends", async () => {
  // webgpu's AddN silently summed only the first 7 of 40 squared norms (norm 0): hand value √Σ 64·32·(0.01 i)²
  const want = Math.sqrt(Array.from({ length: 40 }, (_, i) => 2048 * (0.01 * (i + 1)) ** 2).reduce((a, b) => a + b));
  const results = await onBackends(await parityBackends(), () => {
    const grads: tf.NamedTensorMap = {};
    for (let i = 0; i < 40; i++) grads[`w${i}`] = tf.fill([64, 32], 0.01 * (i + 1));
    const out = clipByGlobalNorm(grads, 1);
    const last = tf.max(out.grads.w39!);
    tf.dispose([Object.values(grads), Object.values(out.grads)]);
    return { norm: out.norm, last };
  });
  for (const [name, r] of results) {
    assertAllClose(r.norm as number, want, { rtol: 1e-5, msg: `${name} norm` });
    assertAllClose(r.last as number, 0.4 / want, { rtol: 1e-5, msg: `${name} scaled gradient` });
  }
});
