import { tf } from "../../lib/tf.ts";
import { maskedMean, maskedSum } from "../../lib/tensor/masked.ts";
import { assertAllClose } from "../../lib/testing/all_close.ts";
import assert from "node:assert/strict";
import { assertNoTensorLeak, holeyMask, onBackends, parityBackends, randomMatrix, t2 } from "../_helpers.ts";
import { refMaskedMean, refMaskedSum } from "../_reference/loops.ts";

Deno.test("maskedSum() / maskedMean() equal the reference loop on seeded data", () => {
  const x = randomMatrix(10, 7, 3);
  const m = holeyMask(10, 7);
  assertAllClose(maskedSum(t2(x), t2(m)), refMaskedSum(x, m), { rtol: 1e-5 });
  assertAllClose(maskedMean(t2(x), t2(m)), refMaskedMean(x, m), { rtol: 1e-5 });
  // per row
  const rows = maskedMean(t2(x), t2(m), 1).arraySync() as number[];
  rows.forEach((v, b) => assertAllClose(v, refMaskedMean([x[b]!], [m[b]!]), { rtol: 1e-5, atol: 1e-6 }));
});

Deno.test("maskedMean() ignores values (even NaN/Inf) at masked positions and is 0 on an empty mask", () => {
  const m = [[1, 0, 1], [0, 0, 1]];
  assertAllClose(maskedMean(t2([[1, NaN, 2], [Infinity, -5, 3]]), t2(m)), 2);
  assertAllClose(maskedMean(t2([[1, 2]]), t2([[0, 0]])), 0);
});

Deno.test("maskedMean() gradient is mask / Σmask", () => {
  const m = t2([[1, 0, 1], [0, 1, 0]]);
  const g = tf.grad((x: tf.Tensor) => maskedMean(x, m))(t2([[1, 2, 3], [4, 5, 6]]));
  assertAllClose(g, [[1 / 3, 0, 1 / 3], [0, 1 / 3, 0]]);
});

Deno.test("maskedSum() rejects mismatched shapes", () => {
  assert.throws(() => maskedSum(tf.zeros([2, 3]), tf.zeros([3, 2])), /mask must have shape \[2, 3\] like x/);
});

Deno.test("maskedMean() does not leak tensors and agrees across backends", async () => {
  const x = randomMatrix(5, 6, 9);
  const m = holeyMask(5, 6);
  assertNoTensorLeak(() => tf.tidy(() => maskedMean(t2(x), t2(m))));
  const results = await onBackends(await parityBackends(), () =>
    tf.tidy(() => {
      const g = tf.grad((v: tf.Tensor) => maskedMean(tf.square(v), t2(m)))(t2(x));
      return { value: maskedMean(t2(x), t2(m)), grad: g };
    }));
  const cpu = results.get("cpu")!;
  for (const [name, r] of results) {
    assertAllClose(r.value, cpu.value, { rtol: 1e-5, atol: 1e-6, msg: name });
    assertAllClose(r.grad, cpu.grad, { rtol: 1e-5, atol: 1e-6, msg: name });
  }
});
