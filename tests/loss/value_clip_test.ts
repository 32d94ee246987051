import assert from "node:assert/strict";
import { tf } from "../../lib/tf.ts";
import { clippedValueLoss, type ValueLossOptions } from "../../lib/loss/value_clip.ts";
import { assertAllClose } from "../../lib/testing/all_close.ts";
import {
  assertNoTensorLeak,
  finiteDifference,
  holeyMask,
  onBackends,
  parityBackends,
  randomMatrix,
  readAll,
  t2,
  torchReference,
} from "../_helpers.ts";
import { refValueLoss } from "../_reference/loops.ts";

interface Case {
  values: number[][];
  oldValues: number[][];
  returns: number[][];
  mask: number[][];
  options: ValueLossOptions;
  loss: number;
  clipFraction: number;
  gradValues: number[][];
}

function run(c: Case) {
  return tf.tidy(() => {
    const f = (v: tf.Tensor) =>
      clippedValueLoss({ values: v, oldValues: t2(c.oldValues), returns: t2(c.returns), mask: t2(c.mask) }, c.options);
    const out = f(t2(c.values));
    return {
      loss: out.loss,
      clipFraction: out.clipFraction,
      grad: tf.grad((v: tf.Tensor) => f(v).loss)(t2(c.values)),
    };
  });
}

Deno.test("clippedValueLoss() equals verl's compute_value_loss, gradients included", async () => {
  const cases = (await torchReference()).clippedValueLoss as Case[];
  for (const c of cases) {
    const r = await readAll(run(c));
    assertAllClose(r.loss, c.loss);
    assertAllClose(r.clipFraction, c.clipFraction);
    assertAllClose(r.grad, c.gradValues);
  }
});

Deno.test("clippedValueLoss() gradient matches finite differences; masked inputs change nothing", () => {
  const B = 5, T = 6;
  const m = holeyMask(B, T);
  const old = randomMatrix(B, T, 31);
  const v = randomMatrix(B, T, 32, 0.7).map((r, b) => r.map((d, t) => old[b]![t]! + d));
  const ret = randomMatrix(B, T, 33);
  const g = tf.grad((x: tf.Tensor) =>
    clippedValueLoss({ values: x, oldValues: t2(old), returns: t2(ret), mask: t2(m) }).loss
  )(t2(v));
  assertAllClose(g, finiteDifference((x) => refValueLoss(x, old, ret, m), v), { rtol: 1e-3, atol: 1e-5 });
  const noisy = ret.map((r, b) => r.map((x, t) => (m[b]![t] ? x : 1e4)));
  assertAllClose(
    clippedValueLoss({ values: t2(v), oldValues: t2(old), returns: t2(noisy), mask: t2(m) }).loss,
    refValueLoss(v, old, ret, m),
    { rtol: 1e-5 },
  );
});

Deno.test("clippedValueLoss() validates, leaks nothing, agrees across backends", async () => {
  const x = t2([[1, 2]]);
  assert.throws(
    () => clippedValueLoss({ values: x, oldValues: x, returns: x, mask: x }, { clipRange: -1 }),
    /clipRange must be ≥ 0/,
  );
  assert.throws(
    () => clippedValueLoss({ values: x, oldValues: t2([[1]]), returns: x, mask: x }),
    /oldValues must have shape \[1, 2\]/,
  );
  assertNoTensorLeak(() => clippedValueLoss({ values: x, oldValues: x, returns: x, mask: x }));
  const c = ((await torchReference()).clippedValueLoss as Case[])[0]!;
  for (const [name, r] of await onBackends(await parityBackends(), () => run(c))) {
    assertAllClose(r.loss, c.loss, { msg: name });
    assertAllClose(r.grad, c.gradValues, { msg: name });
  }
});
