import assert from "node:assert/strict";
import { tf } from "../../lib/tf.ts";
import { assertAllClose } from "../../lib/testing/all_close.ts";

Deno.test("assertAllClose() uses max(rtol·|e|, atol) and names the failing index", () => {
  assertAllClose(1000.0005, 1000, { rtol: 1e-6 });
  assert.throws(() => assertAllClose(1000.002, 1000, { rtol: 1e-6 }), /value: expected 1000, got 1000.002/);
  assertAllClose(1e-10, 0);
  assert.throws(() => assertAllClose(1e-8, 0), /tolerance 1e-9/);
  assert.throws(() => assertAllClose([[1, 2]], [[1, 2, 3]]), /value\[0\]: expected length 3, got 2/);
  assert.throws(() => assertAllClose([NaN], [1]), /value\[0\]: expected 1, got NaN/);
  assertAllClose([NaN], [NaN]);
  assert.throws(() => assertAllClose(1, 2, { msg: "case 7" }), /^Error: case 7: value/);
});

Deno.test("assertAllClose() reads tensors with float32 tolerances", () => {
  const x = tf.tensor1d([0.1, 0.2]);
  assertAllClose(x, [0.1, 0.2]);
  assert.throws(() => assertAllClose(x, [0.1, 0.21]), /value\[1\]/);
  x.dispose();
});
