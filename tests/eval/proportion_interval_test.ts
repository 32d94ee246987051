import assert from "node:assert/strict";
import { newcombeDifference, wilsonInterval } from "../../lib/eval/proportion_interval.ts";

Deno.test("wilsonInterval(): its bounds are where the score test's statistic equals z, for shares inside and at the edges", () => {
  const z = 1.959963984540054;
  for (const [k, n] of [[26, 82], [352, 393], [1, 4], [0, 11], [34, 34]] as const) {
    const { estimate, low, high } = wilsonInterval(k, n);
    assert.equal(estimate, k / n);
    // |p̂ − π| / √(π(1−π)/n) = z at each bound inside (0, 1)
    for (const pi of [low, high]) {
      if (pi <= 0 || pi >= 1) continue;
      assert.ok(Math.abs(Math.abs(k / n - pi) / Math.sqrt(pi * (1 - pi) / n) - z) < 1e-9, `${k}/${n} at ${pi}`);
    }
    assert.ok(low <= estimate && estimate <= high);
  }
  assert.equal(wilsonInterval(0, 11).low, 0);
  assert.equal(wilsonInterval(34, 34).high, 1);
});

Deno.test("newcombeDifference(): antisymmetric in its two shares; covers 0 for equal shares; refuses a count that is not one", () => {
  const ab = newcombeDifference(26, 82, 60, 82);
  const ba = newcombeDifference(60, 82, 26, 82);
  assert.ok(Math.abs(ab.estimate + ba.estimate) < 1e-12);
  assert.ok(Math.abs(ab.low + ba.high) < 1e-12 && Math.abs(ab.high + ba.low) < 1e-12);
  assert.ok(ab.high < 0, `${ab.high}`); // 0.32 against 0.73 on 82 positions each: decided
  const same = newcombeDifference(30, 82, 30, 82);
  assert.ok(same.low < 0 && same.high > 0);
  assert.throws(() => newcombeDifference(5, 4, 1, 4), /5 of 4/);
  assert.throws(() => wilsonInterval(1, 0), /1 of 0/);
});
