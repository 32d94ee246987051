import assert from "node:assert/strict";
import { tf } from "../../lib/tf.ts";
import { type KlEstimator, klPenalty } from "../../lib/loss/kl.ts";
import { createRng } from "../../lib/random.ts";
import { assertAllClose } from "../../lib/testing/all_close.ts";
import { assertNoTensorLeak, onBackends, parityBackends, readAll, t2, torchReference } from "../_helpers.ts";
import { refKl } from "../_reference/loops.ts";

interface Case {
  estimator: KlEstimator;
  straightThrough: boolean;
  logProbs: number[][];
  refLogProbs: number[][];
  weights: number[][];
  expected: number[][];
  gradLogProbs: number[][];
}

function run(c: Case) {
  return tf.tidy(() => {
    const opts = { estimator: c.estimator, straightThrough: c.straightThrough };
    const value = klPenalty(t2(c.logProbs), t2(c.refLogProbs), opts);
    const grad = tf.grad((lp: tf.Tensor) => tf.sum(tf.mul(klPenalty(lp, t2(c.refLogProbs), opts), t2(c.weights))))(
      t2(c.logProbs),
    );
    return { value, grad };
  });
}

Deno.test("klPenalty() equals verl's kl_penalty (k1, abs, k2, low_var_kl, '+' variants) and MiniMind's k3", async () => {
  const cases = (await torchReference()).klPenalty as Case[];
  assert.equal(cases.length, 10);
  for (const c of cases) {
    const r = await readAll(run(c));
    const msg = `${c.estimator}${c.straightThrough ? "+" : ""}`;
    assertAllClose(r.value, c.expected, { msg, rtol: 1e-5, atol: 1e-5 });
    assertAllClose(r.grad, c.gradLogProbs, { msg, rtol: 1e-5, atol: 1e-5 });
  }
});

Deno.test("klPenalty() hand values and the clamps of low_var_kl", () => {
  const v = (lp: number, ref: number, estimator: KlEstimator) =>
    tf.tidy(() => (klPenalty(t2([[lp]]), t2([[ref]]), { estimator }).arraySync() as number[][])[0]![0]!);
  assertAllClose(v(-1, -1, "low_var_kl"), 0);
  assertAllClose(v(0, -25, "low_var_kl"), 10); // 24 > 10 → clamped
  assertAllClose(v(0, 30, "low_var_kl"), 10); // Δ clamped to 20 before exp: no overflow
  assertAllClose(v(0, -3, "low_var_kl"), Math.exp(-3) + 2, { rtol: 1e-5 });
  assertAllClose(v(0, 5, "low_var_kl"), 10); // e⁵ − 6 > 10 → clamped
  assertAllClose(v(0, 5, "k3"), Math.exp(5) - 6, { rtol: 1e-5 }); // MiniMind's is unclamped
  assertAllClose(v(-0.5, -1.5, "abs"), 1);
  // abs has gradient 0 at Δ = 0 (torch), not tf.abs's −1
  const g = tf.grad((lp: tf.Tensor) => tf.sum(klPenalty(lp, t2([[0.3, 0.5]]), { estimator: "abs" })))(t2([[0.3, 0.6]]));
  assertAllClose(g, [[0, 1]]);
});

Deno.test("klPenalty() estimators: k1 and k3 unbiased for KL(π‖π_ref), k3 lower variance (sampled)", () => {
  // π = N(0, 1) and π_ref = N(0.3, 1) over a discretised support: sample from π, average estimators
  const rng = createRng(5);
  const n = 20000;
  const lp: number[] = [];
  const ref: number[] = [];
  for (let i = 0; i < n; i++) {
    const x = rng.normal();
    lp.push(-0.5 * x * x);
    ref.push(-0.5 * (x - 0.3) ** 2);
  }
  const trueKl = 0.3 ** 2 / 2;
  const stats = (est: KlEstimator) => {
    const vals = lp.map((l, i) => refKl(l, ref[i]!, est));
    const mean = vals.reduce((a, b) => a + b) / n;
    const variance = vals.reduce((a, v) => a + (v - mean) ** 2, 0) / (n - 1);
    return { mean, variance };
  };
  const k1 = stats("k1");
  const k3 = stats("k3");
  assertAllClose(k1.mean, trueKl, { atol: 0.01 });
  assertAllClose(k3.mean, trueKl, { atol: 0.005 });
  assert.ok(k3.variance < k1.variance / 5, `k3 variance ${k3.variance} vs k1 ${k1.variance}`);
});

Deno.test("klPenalty() rejects unknown estimators; no leaks; agrees across backends", async () => {
  const x = t2([[0.1]]);
  assert.throws(
    () => klPenalty(x, x, { estimator: "kl" as KlEstimator }),
    /estimator must be one of k1, abs, k2, k3, low_var_kl, current value is "kl"/,
  );
  assertNoTensorLeak(() => klPenalty(x, x));
  assertNoTensorLeak(() =>
    tf.tidy(() => tf.grad((v: tf.Tensor) => tf.sum(klPenalty(v, x, { straightThrough: true })))(x))
  );
  const cases = (await torchReference()).klPenalty as Case[];
  for (const c of cases) {
    for (const [name, r] of await onBackends(await parityBackends(), () => run(c))) {
      const msg = `${name} ${c.estimator}${c.straightThrough ? "+" : ""}`;
      assertAllClose(r.value, c.expected, { msg, rtol: 1e-5, atol: 1e-5 });
      assertAllClose(r.grad, c.gradLogProbs, { msg, rtol: 1e-5, atol: 1e-5 });
    }
  }
});
