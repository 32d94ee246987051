import assert from "node:assert/strict";
import { newcombeDifference, newcombePairedDifference, wilsonInterval } from "../../lib/eval/proportion_interval.ts";
import { createRng } from "../../lib/random.ts";

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

Deno.test("newcombePairedDifference(): covers the true difference of correlated pairs about 95 % of the time, narrower than the independent interval", () => {
  // 82 positions a draw, as the probe's two-fact reads; the two policies share their draw at 60 % of the positions
  const rng = createRng(3);
  const [p1, p2, n, draws] = [0.4, 0.3, 82, 2000];
  let covered = 0;
  let [pairedWidth, independentWidth] = [0, 0];
  for (let t = 0; t < draws; t++) {
    const cells = [0, 0, 0, 0]; // both, first only, second only, neither
    for (let i = 0; i < n; i++) {
      const u = rng.next();
      const v = rng.next() < 0.6 ? u : rng.next();
      const [x, y] = [u < p1, v < p2];
      cells[x && y ? 0 : x ? 1 : y ? 2 : 3]! += 1;
    }
    const [both, first, second, neither] = cells as [number, number, number, number];
    const d = newcombePairedDifference(both, first, second, neither);
    if (d.low <= p1 - p2 && p1 - p2 <= d.high) covered++;
    pairedWidth += d.high - d.low;
    const ind = newcombeDifference(both + first, n, both + second, n);
    independentWidth += ind.high - ind.low;
  }
  assert.ok(covered / draws > 0.93 && covered / draws < 0.975, `coverage ${covered / draws}`);
  assert.ok(pairedWidth < 0.9 * independentWidth, `${pairedWidth / draws} against ${independentWidth / draws}`);
  // first − second, and swapping the two negates it
  const a = newcombePairedDifference(20, 12, 4, 46);
  const b = newcombePairedDifference(20, 4, 12, 46);
  assert.ok(Math.abs(a.estimate - 8 / 82) < 1e-12 && Math.abs(a.low + b.high) < 1e-12);
  assert.throws(() => newcombePairedDifference(0, 0, 0, 0), /0, 0, 0, 0/);
  assert.throws(() => newcombePairedDifference(1, -1, 0, 0), /1, -1, 0, 0/);
});
