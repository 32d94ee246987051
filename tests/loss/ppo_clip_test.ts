import assert from "node:assert/strict";
import { tf } from "../../lib/tf.ts";
import { ppoClipLoss, type PpoClipOptions } from "../../lib/loss/ppo_clip.ts";
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
import { refPpoLoss } from "../_reference/loops.ts";

interface Case {
  logProbs: number[][];
  oldLogProbs: number[][];
  advantages: number[][];
  mask: number[][];
  weights: number[][] | null;
  options: Omit<PpoClipOptions, "dualClip"> & { dualClip: number | "Infinity" };
  loss: number;
  clipFraction: number;
  approxKl: number;
  clipFractionLower: number;
  lossMatrix: number[][];
  gradLogProbs: number[][];
}

function run(c: Case) {
  const options = { ...c.options, dualClip: c.options.dualClip === "Infinity" ? Infinity : c.options.dualClip };
  return tf.tidy(() => {
    const f = (lp: tf.Tensor) =>
      ppoClipLoss({
        logProbs: lp,
        oldLogProbs: t2(c.oldLogProbs),
        advantages: t2(c.advantages),
        mask: t2(c.mask),
        weights: c.weights ? t2(c.weights) : undefined,
      }, options);
    const out = f(t2(c.logProbs));
    const grad = tf.grad((lp: tf.Tensor) => f(lp).loss)(t2(c.logProbs));
    return {
      loss: out.loss,
      clipFraction: out.clipFraction,
      approxKl: out.approxKl,
      clipFractionLower: out.clipFractionLower,
      lossMatrix: out.lossMatrix,
      grad,
    };
  });
}

Deno.test("ppoClipLoss() equals verl's compute_policy_loss_vanilla, gradients included", async () => {
  const cases = (await torchReference()).ppoClipLoss as Case[];
  assert.equal(cases.length, 5);
  for (const c of cases) {
    const r = await readAll(run(c));
    const msg = JSON.stringify(c.options);
    assertAllClose(r.loss, c.loss, { msg });
    assertAllClose(r.clipFraction, c.clipFraction, { msg });
    assertAllClose(r.approxKl, c.approxKl, { msg });
    assertAllClose(r.clipFractionLower, c.clipFractionLower, { msg });
    assertAllClose(r.lossMatrix, c.lossMatrix, { msg });
    assertAllClose(r.grad, c.gradLogProbs, { msg });
  }
});

Deno.test("ppoClipLoss() hand-computed cases: clip, dual-clip, ρ = 1", async (t) => {
  const one = (lp: number, old: number, a: number, options: PpoClipOptions = {}) =>
    tf.tidy(() => {
      const out = ppoClipLoss({
        logProbs: t2([[lp]]),
        oldLogProbs: t2([[old]]),
        advantages: t2([[a]]),
        mask: t2([[1]]),
      }, options);
      return [out.loss.arraySync(), out.clipFraction.arraySync(), out.clipFractionLower.arraySync()];
    });
  await t.step("A < 0, ρ = 0.5: max(−Aρ, −A·clip(ρ)) = max(0.5, 0.8) → loss 0.8, clipped", () => {
    assertAllClose(one(Math.log(0.5), 0, -1), [0.8, 1, 0], { rtol: 1e-5 });
  });
  await t.step("A < 0, ρ = 10: dual-clip bounds the loss at 3·|A|", () => {
    assertAllClose(one(Math.log(10), 0, -2), [6, 0, 1], { rtol: 1e-5 });
    assertAllClose(one(Math.log(10), 0, -2, { dualClip: Infinity }), [20, 0, 0], { rtol: 1e-5 });
  });
  await t.step("asymmetric clip-higher: ρ = 1.25 with clipHigh 0.28 is not clipped", () => {
    assertAllClose(one(Math.log(1.25), 0, 1, { clipHigh: 0.28 }), [-1.25, 0, 0], { rtol: 1e-5 });
  });
  await t.step("ρ = 1 everywhere: loss = −mean(Â) over the mask", () => {
    const adv = [[1, 2, 3], [4, 5, 6]];
    const m = [[1, 1, 0], [1, 0, 0]];
    const out = ppoClipLoss({
      logProbs: t2([[0, 0, 0], [0, 0, 0]]),
      oldLogProbs: t2([[0, 0, 0], [0, 0, 0]]),
      advantages: t2(adv),
      mask: t2(m),
    });
    assertAllClose(out.loss, -(1 + 2 + 4) / 3);
    assertAllClose(out.approxKl, 0);
  });
  await t.step("Â = 0 with dualClip = ∞ gives 0, not NaN", () => {
    assertAllClose(one(Math.log(3), 0, 0, { dualClip: Infinity }), [0, 0, 0]);
  });
});

Deno.test("ppoClipLoss() gradient matches finite differences of the slow loop", () => {
  const B = 5, T = 6;
  const m = holeyMask(B, T);
  const old = randomMatrix(B, T, 21, 0.5, -2);
  const lp = randomMatrix(B, T, 22, 0.3).map((r, b) => r.map((d, t) => old[b]![t]! + d));
  const adv = randomMatrix(B, T, 23, 1.5);
  for (
    const options of [{}, { clipLow: 0.1, clipHigh: 0.3, aggMode: "seq-mean-token-mean" as const }, { dualClip: 2 }]
  ) {
    const g = tf.grad((x: tf.Tensor) =>
      ppoClipLoss({ logProbs: x, oldLogProbs: t2(old), advantages: t2(adv), mask: t2(m) }, options).loss
    )(t2(lp));
    const fd = finiteDifference((x) => refPpoLoss(x, old, adv, m, options), lp);
    assertAllClose(g, fd, { rtol: 1e-3, atol: 1e-5, msg: JSON.stringify(options) });
    assertAllClose(
      ppoClipLoss({ logProbs: t2(lp), oldLogProbs: t2(old), advantages: t2(adv), mask: t2(m) }, options).loss,
      refPpoLoss(lp, old, adv, m, options),
      { rtol: 1e-5, atol: 1e-6 },
    );
  }
});

Deno.test("ppoClipLoss() ignores every input at masked positions", () => {
  const m = [[1, 0, 1], [0, 1, 0]];
  const base = ppoClipLoss({
    logProbs: t2([[-1, -1, -2], [-3, -1, -1]]),
    oldLogProbs: t2([[-1.1, -1, -2.2], [-3, -0.9, -1]]),
    advantages: t2([[1, 1, -1], [1, 2, 1]]),
    mask: t2(m),
  });
  const noisy = ppoClipLoss({
    logProbs: t2([[-1, 50, -2], [-30, -1, 9]]),
    oldLogProbs: t2([[-1.1, -9, -2.2], [4, -0.9, -1]]),
    advantages: t2([[1, -80, -1], [1e6, 2, 1]]),
    mask: t2(m),
  });
  for (const k of ["loss", "clipFraction", "approxKl", "clipFractionLower"] as const) {
    assertAllClose(noisy[k], base[k].arraySync());
  }
});

Deno.test("ppoClipLoss() validates options and shapes; leaks nothing; agrees across backends", async () => {
  const x = t2([[0.1, -0.2]]);
  const inputs = { logProbs: x, oldLogProbs: x, advantages: x, mask: t2([[1, 1]]) };
  assert.throws(() => ppoClipLoss(inputs, { dualClip: 1 }), /dualClip must be > 1 \(or Infinity\), current value is 1/);
  assert.throws(() => ppoClipLoss(inputs, { clipLow: 1.2 }), /clipLow must be in \[0, 1\), current value is 1.2/);
  assert.throws(() => ppoClipLoss({ ...inputs, mask: t2([[1]]) }), /mask must have shape \[1, 2\] like logProbs/);
  assertNoTensorLeak(() => ppoClipLoss(inputs));
  const c = ((await torchReference()).ppoClipLoss as Case[])[1]!;
  const results = await onBackends(await parityBackends(), () => run(c));
  for (const [name, r] of results) {
    assertAllClose(r.loss, c.loss, { msg: name });
    assertAllClose(r.grad, c.gradLogProbs, { msg: name });
  }
});
