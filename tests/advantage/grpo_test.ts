import assert from "node:assert/strict";
import { grpoAdvantages } from "../../lib/advantage/grpo.ts";
import { assertAllClose } from "../../lib/testing/all_close.ts";
import { torchReference } from "../_helpers.ts";

interface Case {
  scores: number[];
  groupIds: (string | number)[];
  options: Record<string, unknown>;
  expected: number[];
}

Deno.test("grpoAdvantages() equals verl's compute_grpo_outcome_advantage (any order, singleton, all-equal)", async () => {
  const ref = await torchReference();
  for (const c of ref.grpoAdvantages as Case[]) {
    assertAllClose(grpoAdvantages(c.scores, c.groupIds, c.options), c.expected, { msg: JSON.stringify(c.options) });
  }
  const mm = ref.grpoAdvantagesMiniMind as Case;
  assertAllClose(grpoAdvantages(mm.scores, mm.groupIds, mm.options), mm.expected);
});

Deno.test("grpoAdvantages() edge cases", async (t) => {
  await t.step("all-equal group → exactly 0", () => {
    assert.deepEqual(grpoAdvantages([0.1, 0.1, 0.1], [1, 1, 1]), [0, 0, 0]);
  });
  await t.step("singleton: verl uses μ = 0, σ = 1; MiniMind's population σ = 0 gives 0", () => {
    assertAllClose(grpoAdvantages([0.7], ["x"]), [0.7 / (1 + 1e-6)]);
    assertAllClose(grpoAdvantages([0.7], ["x"], { normByStd: false }), [0.7]);
    assert.deepEqual(grpoAdvantages([0.7], ["x"], { std: "population", epsilon: 1e-4 }), [0]);
  });
  await t.step("advantages sum to 0 within each group", () => {
    const a = grpoAdvantages([1, 0, 1, 0.5, 0.2, 0.9], ["a", "b", "a", "b", "a", "b"]);
    assertAllClose(a[0]! + a[2]! + a[4]!, 0, { atol: 1e-12 });
    assertAllClose(a[1]! + a[3]! + a[5]!, 0, { atol: 1e-12 });
  });
  await t.step("the seed's 16 detectives: mean 0.625, right +0.375, wrong −0.625 (before ÷σ)", () => {
    const scores = [...Array(10).fill(1), ...Array(6).fill(0)];
    const centred = grpoAdvantages(scores, Array(16).fill("q"), { normByStd: false });
    assertAllClose(centred[0]!, 0.375);
    assertAllClose(centred[15]!, -0.625);
    const sigma = Math.sqrt((10 * 0.375 ** 2 + 6 * 0.625 ** 2) / 15);
    const a = grpoAdvantages(scores, Array(16).fill("q"), { epsilon: 0 });
    assertAllClose(a[0]!, 0.375 / sigma);
    assertAllClose(a[15]!, -0.625 / sigma);
  });
  await t.step("bad input", () => {
    assert.throws(() => grpoAdvantages([1, NaN], [1, 1]), /scores\[1\] must be a finite number, current value is NaN/);
    assert.throws(() => grpoAdvantages([1, 2], [1]), /groupIds must have one id per score \(2\), current length is 1/);
    assert.throws(
      () => grpoAdvantages([1], [1], { std: "sample" as "bessel" }),
      /std must be "bessel" or "population"/,
    );
  });
});
