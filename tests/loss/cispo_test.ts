import assert from "node:assert/strict";
import { tf } from "../../lib/tf.ts";
import { cispoLoss, type CispoOptions } from "../../lib/loss/cispo.ts";
import { assertAllClose } from "../../lib/testing/all_close.ts";
import {
  assertNoTensorLeak,
  holeyMask,
  onBackends,
  parityBackends,
  randomMatrix,
  readAll,
  t2,
  torchReference,
} from "../_helpers.ts";
import { refCispoLoss } from "../_reference/loops.ts";

interface Case {
  logProbs: number[][];
  oldLogProbs: number[][];
  advantages: number[][];
  mask: number[][];
  options: Required<Pick<CispoOptions, "ratioFloor" | "ratioCap" | "aggMode">>;
  loss: number;
  gradLogProbs: number[][];
}

function run(c: Case) {
  return tf.tidy(() => {
    const f = (lp: tf.Tensor) =>
      cispoLoss(
        { logProbs: lp, oldLogProbs: t2(c.oldLogProbs), advantages: t2(c.advantages), mask: t2(c.mask) },
        c.options,
      );
    return {
      loss: f(t2(c.logProbs)).loss,
      grad: tf.grad((lp: tf.Tensor) => f(lp).loss)(t2(c.logProbs)),
    };
  });
}

Deno.test("cispoLoss() equals MiniMind's (cap) and verl's (floor and cap) CISPO, gradients included", async () => {
  for (const c of (await torchReference()).cispoLoss as Case[]) {
    const r = await readAll(run(c));
    assertAllClose(r.loss, c.loss, { msg: JSON.stringify(c.options) });
    assertAllClose(r.grad, c.gradLogProbs, { msg: JSON.stringify(c.options) });
  }
});

Deno.test("cispoLoss() gradient is −sg(w)·Â / N: the IS weight carries no gradient", () => {
  const B = 5, T = 4;
  const m = holeyMask(B, T);
  const old = randomMatrix(B, T, 41, 0.5, -2);
  const lp = randomMatrix(B, T, 42, 0.8).map((r, b) => r.map((d, t) => old[b]![t]! + d));
  const adv = randomMatrix(B, T, 43);
  const g = tf.grad((x: tf.Tensor) =>
    cispoLoss({ logProbs: x, oldLogProbs: t2(old), advantages: t2(adv), mask: t2(m) }).loss
  )(t2(lp));
  // the weight is stopped, so ∂L/∂lp = −w·Â / N (token-mean), not the derivative of the whole product
  const n = m.flat().reduce((a, b) => a + b, 0);
  const expected = lp.map((r, b) =>
    r.map((v, t) => (m[b]![t] ? -Math.min(Math.exp(v - old[b]![t]!), 5) * adv[b]![t]! / n : 0))
  );
  assertAllClose(g, expected, { rtol: 1e-4, atol: 1e-6 });
  assertAllClose(
    cispoLoss({ logProbs: t2(lp), oldLogProbs: t2(old), advantages: t2(adv), mask: t2(m) }).loss,
    refCispoLoss(lp, old, adv, m, 0, 5, "token-mean"),
    { rtol: 1e-5, atol: 1e-6 },
  );
});

Deno.test("cispoLoss() validates; leaks nothing; agrees across backends", async () => {
  const x = t2([[-0.5]]);
  assert.throws(
    () => cispoLoss({ logProbs: x, oldLogProbs: x, advantages: x, mask: x }, { ratioCap: 0 }),
    /need 0 ≤ ratioFloor < ratioCap/,
  );
  assertNoTensorLeak(() =>
    tf.tidy(() => ({ ...cispoLoss({ logProbs: x, oldLogProbs: x, advantages: x, mask: t2([[1]]) }) }))
  );
  const c = ((await torchReference()).cispoLoss as Case[])[0]!;
  for (const [name, r] of await onBackends(await parityBackends(), () => run(c))) {
    assertAllClose(r.loss, c.loss, { msg: name });
    assertAllClose(r.grad, c.gradLogProbs, { msg: name });
  }
});
