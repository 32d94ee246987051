import assert from "node:assert/strict";
import {
  combineAdvantages,
  infomemAdvantages,
  memoryAdvantages,
  spanLengthScales,
} from "../../lib/advantage/memory_advantage.ts";
import { grpoAdvantages } from "../../lib/advantage/grpo.ts";
import { assertAllClose } from "../../lib/testing/all_close.ts";

// A pool that contains the seed's two turns and has mean −0.01 and Bessel std 0.18:
// with −0.23 and +0.05, two more values x + y = 0.14 with squared deviations summing to 0.0452.
const u = Math.sqrt(0.0162);
const POOL = [-0.23, 0.05, -0.01 + 0.08 + u, -0.01 + 0.08 - u];

Deno.test("memoryAdvantages() reproduces the seed: −0.23 / +0.05 → −1.22 / +0.33", () => {
  const mean = POOL.reduce((a, b) => a + b) / 4;
  const std = Math.sqrt(POOL.reduce((a, v) => a + (v - mean) ** 2, 0) / 3);
  assertAllClose(mean, -0.01, { atol: 1e-12 });
  assertAllClose(std, 0.18, { atol: 1e-12 });
  // trajectory 1 has the seed's two memory turns (turn 1 never has one); trajectory 2 the rest
  const adv = memoryAdvantages({ rewards: [[null, POOL[0]!, POOL[1]!], [null, POOL[2]!, POOL[3]!]], groupIds: [7, 7] });
  assert.equal(adv[0]![0], null);
  assertAllClose(adv[0]![1]!, -0.22 / (0.18 + 1e-6));
  assertAllClose(adv[0]![2]!, 0.06 / (0.18 + 1e-6));
  assert.equal(Math.round(adv[0]![1]! * 100) / 100, -1.22);
  assert.equal(Math.round(adv[0]![2]! * 100) / 100, 0.33);
  // → with A^T = +0.8: memory spans −0.42 and +1.13, other tokens +0.8
  const final = combineAdvantages({
    outcomeAdvantages: [0.8],
    memorySpans: [[{ start: 1, end: 3, advantage: adv[0]![1]! }, { start: 5, end: 7, advantage: adv[0]![2]! }]],
    mask: [[1, 1, 1, 1, 1, 1, 1, 1]],
  });
  assert.deepEqual(final[0]!.map((v) => Math.round(v * 100) / 100), [0.8, -0.42, -0.42, 0.8, 0.8, 1.13, 1.13, 0.8]);
});

Deno.test("memoryAdvantages() pools per question and calls the GRPO normaliser", () => {
  const rewards = [[null, 0.1, 0.4], [null, -0.2], [null, 0.3, 0.3, 0.0]];
  const ids = ["a", "b", "a"];
  const adv = memoryAdvantages({ rewards, groupIds: ids }, { epsilon: 1e-4, std: "population" });
  const flat = grpoAdvantages([0.1, 0.4, 0.3, 0.3, 0.0], ["a", "a", "a", "a", "a"], {
    epsilon: 1e-4,
    std: "population",
  });
  assertAllClose([adv[0]![1]!, adv[0]![2]!, adv[2]![1]!, adv[2]![2]!, adv[2]![3]!], flat);
  assert.deepEqual(adv[1], [null, 0]); // question "b" has one memory turn: population std → 0
  // flat form
  assertAllClose(memoryAdvantages({ rewards: [0.1, 0.3], groupIds: [1, 1] }, { epsilon: 0 }), [
    -Math.SQRT1_2,
    Math.SQRT1_2,
  ]);
});

Deno.test("memoryAdvantages() pool 'turn': each turn index of a question normalised alone (slow reference loop)", () => {
  const rewards = [[null, 0.1, 0.4, -0.3], [null, -0.2, 0.5], [null, 0.3, 0.3, 0.0], [null, 0.6]];
  const ids = ["a", 1, "a", "1"]; // 1 and "1" are different questions
  const opts = { epsilon: 1e-6, std: "bessel" as const };
  const adv = memoryAdvantages({ rewards, groupIds: ids }, { ...opts, pool: "turn" });
  // reference: for every (question, turn), the GRPO normaliser over that cell alone
  const expected = rewards.map((row) => row.map((r) => (r === null ? null : NaN)));
  for (const id of new Set(ids)) {
    for (let t = 1; t < 4; t++) {
      const cell = rewards.flatMap((row, i) => (ids[i] === id && row[t] != null ? [[i, row[t]!] as const] : []));
      if (cell.length === 0) continue;
      const a = grpoAdvantages(cell.map((c) => c[1]), cell.map(() => 0), opts);
      cell.forEach(([i], k) => (expected[i]![t] = a[k]!));
    }
  }
  assert.deepEqual(adv.map((row) => row.map((v) => v === null)), expected.map((row) => row.map((v) => v === null)));
  assertAllClose(
    adv.flat().filter((v) => v !== null) as number[],
    expected.flat().filter((v) => v !== null) as number[],
  );
  // by hand: question "a", turn 2 pools {0.1, 0.3} and turn 4 {−0.3, 0}: ±1/√2; question 1 has one memory per turn
  // (singleton: μ 0, σ 1) → R^M kept
  assertAllClose([adv[0]![1]!, adv[2]![1]!, adv[0]![3]!, adv[2]![3]!, adv[1]![2]!], [
    -Math.SQRT1_2,
    Math.SQRT1_2,
    -Math.SQRT1_2,
    Math.SQRT1_2,
    0.5,
  ], { atol: 1e-5 });
  // the question pool differs: turn 2's 0.1 is compared with 0.4, 0.3, 0.3, 0 and −0.3 too
  const q = memoryAdvantages({ rewards, groupIds: ids }, opts);
  assert.ok(Math.abs(q[0]![1]! - adv[0]![1]!) > 0.1);
  assert.throws(
    () => memoryAdvantages({ rewards: [0.1, 0.2], groupIds: [1, 1] }, { pool: "turn" }),
    /pool "turn" needs rewards per trajectory and turn/,
  );
  assert.throws(
    () => memoryAdvantages({ rewards, groupIds: ids }, { pool: "step" as never }),
    /pool must be "question" or "turn", current value is "step"/,
  );
});

Deno.test("combineAdvantages() zeroes masked tokens and scales by memCoef", () => {
  const out = combineAdvantages({
    outcomeAdvantages: [1, -0.5],
    memorySpans: [[{ start: 0, end: 2, advantage: 2 }], []],
    mask: [[1, 1, 0, 1], [1, 1, 1, 0]],
  }, { memCoef: 0.5 });
  assert.deepEqual(out, [[2, 2, 0, 1], [-0.5, -0.5, -0.5, 0]]);
  assert.throws(
    () =>
      combineAdvantages({
        outcomeAdvantages: [1],
        memorySpans: [[{ start: 2, end: 9, advantage: 1 }]],
        mask: [[1, 1]],
      }),
    /memorySpans\[0\]\[0\] must satisfy 0 ≤ start ≤ end ≤ 2, current value is \[2, 9\)/,
  );
  assert.throws(
    () => combineAdvantages({ outcomeAdvantages: [1, 2], memorySpans: [[]], mask: [[1]] }),
    /must have 2 rows like outcomeAdvantages/,
  );
});

Deno.test("spanLengthScales(): every span's total weight is the mean length; the net push of a zero-sum A^M vanishes", () => {
  const lengths = [3, 5, 10, 0, 6];
  const scales = spanLengthScales(lengths);
  assertAllClose(scales, [2, 6 / 5, 6 / 10, 1, 1], { rtol: 1e-12, atol: 0 });
  lengths.forEach((L, s) => L > 0 && assertAllClose(L * scales[s]!, 6, { rtol: 1e-12, atol: 0 }));
  // a question pool's A^M sums to 0; token-weighted (MemPO) it pushes the long spans' sign, span-weighted it does not
  const adv = memoryAdvantages({ rewards: [0.3, 0.1, -0.2, -0.4], groupIds: [0, 0, 0, 0] }, { epsilon: 0 });
  const L = [4, 6, 9, 11];
  const tokenSum = adv.reduce((a, A, s) => a + A * L[s]!, 0);
  const w = spanLengthScales(L);
  const spanSum = adv.reduce((a, A, s) => a + A * w[s]! * L[s]!, 0);
  assert.ok(tokenSum < -1, `token-weighted sum ${tokenSum}`);
  assertAllClose(spanSum, 0, { rtol: 0, atol: 1e-12 });
  assert.deepEqual(spanLengthScales([]), []);
  assert.deepEqual(spanLengthScales([0, 0]), [1, 1]);
  assert.throws(() => spanLengthScales([2, -1]), /lengths\[1\] must be a non-negative integer, current value is -1/);
  assert.throws(() => spanLengthScales([2.5]), /lengths\[0\] must be a non-negative integer, current value is 2.5/);
});

Deno.test("infomemAdvantages(): by hand, two questions, a wrong trajectory in each; then combined on the <mem> spans", () => {
  // question "a": right trajectories 0 and 2 hold R^M {0.2, 0.6} and {0.4}; trajectory 1 is wrong (0.9 ignored)
  // question "b": right trajectory 3 holds {−0.5, 0.5}; trajectory 4 is wrong
  const rewards = [[null, 0.2, 0.6], [null, 0.9], [null, 0.4], [null, -0.5, 0.5], [null, 0.3]];
  const a = infomemAdvantages({ rewards, groupIds: ["a", "a", "a", "b", "b"], outcomes: [1, 0, 1, 1, 0] }, {
    epsilon: 0,
  });
  // "a": μ = 0.4, Bessel σ = 0.2 → −1, +1, 0; "b": μ = 0, σ = √0.5 → ∓0.5 / √0.5 = ∓√0.5
  assertAllClose(a[0]!.slice(1) as number[], [-1, 1]);
  assertAllClose(a[2]![1]!, 0, { atol: 1e-12 });
  assertAllClose(a[3]!.slice(1) as number[], [-Math.SQRT1_2, Math.SQRT1_2]);
  assert.deepEqual([a[1], a[4]], [[null, 0], [null, 0]]);
  assert.deepEqual(a.map((row) => row[0]), [null, null, null, null, null]);
  // MemPO on the same rewards pools the wrong ones too: "a" = {0.2, 0.6, 0.9, 0.4}
  const m = memoryAdvantages({ rewards, groupIds: ["a", "a", "a", "b", "b"] }, { epsilon: 0 });
  assert.ok((m[1]![1] as number) > 1, "MemPO pushes the wrong trajectory's memory up");
  // combined as MemPO combines: A^T + memCoef · A^M on the span, A^T elsewhere
  const final = combineAdvantages({
    outcomeAdvantages: [0.5],
    memorySpans: [[{ start: 1, end: 2, advantage: a[0]![2]! }]],
    mask: [[1, 1, 1]],
  }, { memCoef: 0.5 });
  assertAllClose(final, [[0.5, 1, 0.5]]);
});

Deno.test("infomemAdvantages(): wrong trajectories get no memory advantage whatever their rewards; all right = MemPO", () => {
  const rng = (() => {
    let x = 7;
    return () => ((x = (x * 48271) % 2147483647) / 2147483647);
  })();
  for (let trial = 0; trial < 20; trial++) {
    const N = 6;
    const rewards = Array.from(
      { length: N },
      () => [null, ...Array.from({ length: 1 + (trial % 3) }, () => rng() - 0.5)],
    );
    const groupIds = Array.from({ length: N }, (_, i) => i % 2);
    const outcomes = Array.from({ length: N }, (_, i) => ((i + trial) % 3 === 0 ? 0 : 1));
    for (const pool of ["question", "turn"] as const) {
      const opts = { epsilon: 1e-6, pool };
      const a = infomemAdvantages({ rewards, groupIds, outcomes }, opts);
      // invariance: changing a wrong trajectory's memory rewards changes nothing
      const moved = rewards.map((row, i) => (outcomes[i] === 0 ? row.map((r) => (r === null ? null : r + 5)) : row));
      assert.deepEqual(infomemAdvantages({ rewards: moved, groupIds, outcomes }, opts), a);
      a.forEach((row, i) => outcomes[i] === 0 && assert.ok(row.every((x) => x === null || x === 0)));
      // the right ones equal MemPO run on the right trajectories alone
      const right = rewards.flatMap((_, i) => (outcomes[i] === 1 ? [i] : []));
      const alone = memoryAdvantages({
        rewards: right.map((i) => rewards[i]!),
        groupIds: right.map((i) => groupIds[i]!),
      }, opts);
      assert.deepEqual(right.map((i) => a[i]), alone);
      // every trajectory right: exactly MemPO
      assert.deepEqual(
        infomemAdvantages({ rewards, groupIds, outcomes: outcomes.map(() => 1) }, opts),
        memoryAdvantages({ rewards, groupIds }, opts),
      );
    }
  }
  assert.throws(
    () => infomemAdvantages({ rewards: [[null, 1]], groupIds: [0], outcomes: [] }),
    /outcomes must have one reward per trajectory \(1\), current length is 0/,
  );
  assert.throws(
    () => infomemAdvantages({ rewards: [[null, 1]], groupIds: [0], outcomes: [NaN] }),
    /outcomes\[0\] must be a finite number/,
  );
});
