import assert from "node:assert/strict";
import { bootstrapMeans, pairedBootstrap, quantile } from "../../lib/eval/paired_bootstrap.ts";
import { createRng } from "../../lib/random.ts";
import { assertAllClose } from "../../lib/testing/all_close.ts";

/** Every index tuple of length n over {0..m−1} (m^n of them). */
function tuples(n: number, m: number): number[][] {
  let out: number[][] = [[]];
  for (let i = 0; i < n; i++) out = out.flatMap((t) => Array.from({ length: m }, (_, v) => [...t, v]));
  return out;
}

/** The largest gap between the empirical CDF of `sample` and the CDF of the equally likely `exact` values. */
function cdfDistance(sample: number[], exact: number[]): number {
  const points = [...new Set([...sample, ...exact])].sort((a, b) => a - b);
  const cdf = (xs: number[], v: number) => xs.filter((x) => x <= v + 1e-12).length / xs.length;
  return Math.max(...points.map((v) => Math.abs(cdf(sample, v) - cdf(exact, v))));
}

// 2 seeds × 3 questions, distinct values so the 108 resamples have many distinct means
const D = [[0.5, -1, 0.25], [1, 0, -0.5]];

Deno.test("bootstrapMeans(seeds-and-questions): its distribution is the exact one, enumerated over all 2² × 3³ resamples", () => {
  const exact: number[] = [];
  for (const ss of tuples(2, 2)) {
    for (const qs of tuples(3, 3)) exact.push(ss.reduce((a, s) => a + qs.reduce((b, q) => b + D[s]![q]!, 0), 0) / 6);
  }
  assert.equal(exact.length, 108);
  const mc = bootstrapMeans(D, { resamples: 20000, seed: 3 });
  // Dvoretzky–Kiefer–Wolfowitz: P(sup |F̂ − F| > 0.015) ≤ 2 exp(−2 · 20000 · 0.015²) ≈ 2.5e-4
  const gap = cdfDistance(mc, exact);
  assert.ok(gap < 0.015, `sup |F̂ − F| = ${gap}`);
  // the exact distribution is centred on the mean difference (every index is uniform)
  assertAllClose(exact.reduce((a, b) => a + b, 0) / 108, D.flat().reduce((a, b) => a + b, 0) / 6, { atol: 1e-12 });
  // and the interval is read off it: the MC percentiles sit where the exact CDF is 2.5 % and 97.5 % (± the DKW band)
  const r = pairedBootstrap(D, D.map((row) => row.map(() => 0)), { resamples: 20000, seed: 3 });
  const F = (v: number) => exact.filter((x) => x <= v + 1e-12).length / 108;
  const Fbelow = (v: number) => exact.filter((x) => x < v - 1e-12).length / 108;
  assert.ok(Fbelow(r.ciLow) <= 0.025 + 0.015 && F(r.ciLow) >= 0.025 - 0.015, `ciLow ${r.ciLow}`);
  assert.ok(Fbelow(r.ciHigh) <= 0.975 + 0.015 && F(r.ciHigh) >= 0.975 - 0.015, `ciHigh ${r.ciHigh}`);
});

Deno.test("bootstrapMeans(questions): one question draw for both seeds, seeds kept; exact over all 3³ resamples", () => {
  const exact = tuples(3, 3).map((qs) => qs.reduce((a, q) => a + D[0]![q]! + D[1]![q]!, 0) / 6);
  assert.equal(exact.length, 27);
  const mc = bootstrapMeans(D, { resamples: 20000, seed: 4, resample: "questions" });
  const gap = cdfDistance(mc, exact);
  assert.ok(gap < 0.015, `sup |F̂ − F| = ${gap}`);
  // seeds fixed: a single seed's grid gives the same distribution under both schemes
  const one = [[0.5, -1, 0.25]];
  const a = bootstrapMeans(one, { resamples: 5000, seed: 1 });
  const b = bootstrapMeans(one, { resamples: 5000, seed: 1, resample: "questions" });
  assert.ok(cdfDistance(a, b) < 0.04);
});

/** Crossed synthetic differences: μ + a_s + b_q + e_sq (seed effect, question effect, noise). */
function synthetic(rng: ReturnType<typeof createRng>, S: number, Q: number, mu: number, sa: number, sb: number) {
  const a = Array.from({ length: S }, () => sa * rng.normal());
  const b = Array.from({ length: Q }, () => sb * rng.normal());
  return a.map((as) => b.map((bq) => mu + as + bq + 0.3 * rng.normal()));
}

/** Questions resampled apart within each seed (what the schemes avoid): a slow reference loop. */
function withinSeedInterval(d: number[][], seed: number): [number, number] {
  const rng = createRng(seed);
  const Q = d[0]!.length;
  const means = Array.from({ length: 1000 }, () => {
    let sum = 0;
    for (const row of d) for (let j = 0; j < Q; j++) sum += row[rng.int(Q)]!;
    return sum / (d.length * Q);
  });
  return [quantile(means, 0.025), quantile(means, 0.975)];
}

function coverage(S: number, Q: number, sa: number, resample: "seeds-and-questions" | "questions" | "within-seed") {
  const rng = createRng(11);
  const mu = 0.1;
  let hits = 0;
  const reps = 300;
  for (let r = 0; r < reps; r++) {
    const d = synthetic(rng, S, Q, mu, sa, 0.2);
    const [lo, hi] = resample === "within-seed" ? withinSeedInterval(d, r) : (() => {
      const res = pairedBootstrap(d, d.map((row) => row.map(() => 0)), { resamples: 1000, seed: r, resample });
      return [res.ciLow, res.ciHigh];
    })();
    if (lo <= mu && mu <= hi) hits += 1;
  }
  return hits / reps;
}

Deno.test("pairedBootstrap(): the 95 % interval covers the known mean of crossed synthetic data about 95 % of the time", () => {
  // seeds and questions both random: the default scheme covers (the pigeonhole bootstrap is slightly conservative;
  // 300 replications: binomial sd 1.3 points)
  const both = coverage(10, 20, 0.3, "seeds-and-questions");
  assert.ok(both >= 0.9 && both <= 0.995, `coverage ${both}`);
  // resampling questions only ignores the seed spread: with a seed effect it under-covers badly
  const questionsOnly = coverage(10, 20, 0.3, "questions");
  assert.ok(questionsOnly < 0.75, `questions-only coverage ${questionsOnly}`);
  // without a seed effect, both schemes cover
  const noSeedEffect = coverage(10, 20, 0, "questions");
  assert.ok(noSeedEffect >= 0.9 && noSeedEffect <= 0.99, `coverage without seed effect ${noSeedEffect}`);
  // drawing questions apart within each seed breaks the question's shared difficulty: too narrow even then
  const within = coverage(10, 20, 0, "within-seed");
  assert.ok(within < 0.8, `within-seed coverage without seed effect ${within}`);
  console.log(
    `coverage: seeds-and-questions ${both}, questions ${questionsOnly} (no seed effect ${noSeedEffect}), within-seed ${within}`,
  );
});

Deno.test("pairedBootstrap(): counts, the mean, seeded, and every bad input named", () => {
  const a = [[1, 0, 1, 1], [0, 0, 1, 1], [1, 1, 1, 0]];
  const b = [[0, 0, 1, 0], [0, 1, 1, 0], [1, 0, 0, 0]];
  const r = pairedBootstrap(a, b, { seed: 5 });
  assert.deepEqual([r.pairs, r.seeds, r.questions, r.resamples, r.level, r.resample], [
    12,
    3,
    4,
    10000,
    0.95,
    "seeds-and-questions",
  ]);
  assert.equal(r.meanDiff, 4 / 12);
  assert.ok(r.ciLow < r.meanDiff && r.meanDiff < r.ciHigh);
  assert.deepEqual(pairedBootstrap(a, b, { seed: 5 }), r, "seeded");
  const d = a.map((row, s) => row.map((x, q) => x - b[s]![q]!));
  assert.notDeepEqual(bootstrapMeans(d, { seed: 6, resamples: 100 }), bootstrapMeans(d, { seed: 5, resamples: 100 }));
  const narrow = pairedBootstrap(a, b, { seed: 5, level: 0.5 });
  assert.ok(narrow.ciLow > r.ciLow && narrow.ciHigh < r.ciHigh);
  assert.throws(() => pairedBootstrap(a, b.slice(1)), /a is \[3\]\[4\] and b is \[2\]\[4\]/);
  assert.throws(() => pairedBootstrap([[1, 2], [1]], [[1, 2], [1]]), /diffs\[1\] has 1 and diffs\[0\] 2/);
  assert.throws(() => pairedBootstrap([], []), /non-empty \[S\]\[Q\] array/);
  assert.throws(() => pairedBootstrap([[NaN]], [[0]]), /diffs\[0\]\[0\] must be a finite number, current value is NaN/);
  assert.throws(() => pairedBootstrap(a, b, { level: 95 }), /level must be in \(0, 1\), current value is 95/);
  assert.throws(() => bootstrapMeans(a, { resamples: 0 }), /resamples must be an integer ≥ 1, current value is 0/);
  assert.throws(() => bootstrapMeans(a, { resample: "seeds" as never }), /resample must be .*current value is "seeds"/);
  assert.equal(quantile([5], 0.975), 5);
  assert.equal(quantile([0, 10], 0.975), 9.75);
  assert.throws(() => quantile([], 0.5), /values must not be empty/);
});
