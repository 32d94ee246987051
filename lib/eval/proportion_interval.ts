/**
 * Intervals for shares counted on positions or questions: Wilson's score
 * interval for one proportion, and Newcombe's hybrid score intervals for the
 * difference of two: independent ones, or paired ones (two policies scored
 * at the same positions).
 *
 * @module
 */

/** The normal quantile of a two-sided 95 % interval. */
const Z95 = 1.959963984540054;

/** An interval `[low, high]` around an estimate. */
export interface Interval {
  /** The point estimate. */
  estimate: number;
  /** The lower bound. */
  low: number;
  /** The upper bound. */
  high: number;
}

/** Throws unless `k` of `n` is a count: integers, 0 ≤ k ≤ n, n ≥ 1. */
function checkCount(k: number, n: number): void {
  if (!Number.isInteger(k) || !Number.isInteger(n) || n < 1 || k < 0 || k > n) {
    throw new RangeError(`Invalid count: needs integers 0 ≤ k ≤ n, n ≥ 1, current value is ${k} of ${n}`);
  }
}

/**
 * Wilson's score interval for a proportion `k / n` (no continuity
 * correction).
 *
 * ```text
 * p̂ = k/n;  centre = (p̂ + z²/2n) / (1 + z²/n);  half = z √(p̂(1−p̂)/n + z²/4n²) / (1 + z²/n)
 * ```
 *
 * Source: E. B. Wilson (1927), "Probable inference, the law of succession, and statistical inference", JASA 22;
 * method 3 of R. G. Newcombe (1998), "Two-sided confidence intervals for the single proportion", Statistics in
 * Medicine 17.
 *
 * @param k Successes.
 * @param n Trials (≥ 1).
 * @param z The normal quantile. @default 1.96 (95 %)
 * @returns The share and its interval.
 * @throws {RangeError} When `k` of `n` is not a count.
 *
 * @example Newcombe's (1998) example: 81 of 263
 * ```ts
 * import assert from "node:assert/strict";
 * import { wilsonInterval } from "./proportion_interval.ts";
 *
 * const { low, high } = wilsonInterval(81, 263);
 * assert.deepEqual([low.toFixed(4), high.toFixed(4)], ["0.2553", "0.3662"]);
 * ```
 */
export function wilsonInterval(k: number, n: number, z = Z95): Interval {
  checkCount(k, n);
  const p = k / n;
  const z2 = z * z;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z * Math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))) / (1 + z2 / n);
  // at k = 0 and k = n the bound is 0 or 1 exactly (the formula's rounding leaves it a hair off)
  return { estimate: p, low: k === 0 ? 0 : centre - half, high: k === n ? 1 : centre + half };
}

/**
 * Newcombe's hybrid score interval for the difference `k1/n1 − k2/n2` of two
 * independent proportions, built from each one's Wilson interval.
 *
 * ```text
 * d = p̂1 − p̂2;  low = d − √((p̂1 − l1)² + (u2 − p̂2)²);  high = d + √((u1 − p̂1)² + (p̂2 − l2)²)
 * ```
 *
 * Source: R. G. Newcombe (1998), "Interval estimation for the difference between independent proportions:
 * comparison of eleven methods", Statistics in Medicine 17, method 10.
 *
 * @param k1 Successes of the first.
 * @param n1 Trials of the first.
 * @param k2 Successes of the second.
 * @param n2 Trials of the second.
 * @param z The normal quantile. @default 1.96 (95 %)
 * @returns The difference and its interval.
 * @throws {RangeError} When either is not a count.
 *
 * @example Newcombe's (1998) example (a): 56 of 70 against 48 of 80
 * ```ts
 * import assert from "node:assert/strict";
 * import { newcombeDifference } from "./proportion_interval.ts";
 *
 * const { estimate, low, high } = newcombeDifference(56, 70, 48, 80);
 * assert.deepEqual([estimate.toFixed(4), low.toFixed(4), high.toFixed(4)], ["0.2000", "0.0524", "0.3339"]);
 * ```
 */
export function newcombeDifference(k1: number, n1: number, k2: number, n2: number, z = Z95): Interval {
  const a = wilsonInterval(k1, n1, z);
  const b = wilsonInterval(k2, n2, z);
  const d = a.estimate - b.estimate;
  return {
    estimate: d,
    low: d - Math.hypot(a.estimate - a.low, b.high - b.estimate),
    high: d + Math.hypot(a.high - a.estimate, b.estimate - b.low),
  };
}

/**
 * Newcombe's score interval for the difference of two proportions measured
 * on the same items (two policies scored at the same positions): each item
 * is right under both (`both`), under the first only, the second only, or
 * neither. The Wilson intervals of the two shares are combined with their
 * correlation φ, so the interval is narrower than the independent one where
 * the two agree item by item.
 *
 * ```text
 * n = both + first + second + neither;  p̂1 = (both + first)/n;  p̂2 = (both + second)/n;  d = (first − second)/n
 * φ = C / √((both+first)(second+neither)(both+second)(first+neither)),  B = both·neither − first·second,
 *     C = B − n/2 where B > n/2, B where B < 0, else 0  (φ = 0 where a margin is 0)
 * low  = d − √((p̂1 − l1)² − 2φ(p̂1 − l1)(u2 − p̂2) + (u2 − p̂2)²)
 * high = d + √((u1 − p̂1)² − 2φ(u1 − p̂1)(p̂2 − l2) + (p̂2 − l2)²)
 * ```
 *
 * Source: R. G. Newcombe (1998), "Improved confidence intervals for the difference between binomial proportions
 * based on paired data", Statistics in Medicine 17, 2635–2650, method 10.
 *
 * @param both Items right under both.
 * @param first Items right under the first only.
 * @param second Items right under the second only.
 * @param neither Items right under neither.
 * @param z The normal quantile. @default 1.96 (95 %)
 * @returns The difference (first − second) and its interval.
 * @throws {RangeError} When a count is not an integer ≥ 0 or all are 0.
 *
 * @example Where φ is 0 it is the independent interval of the two margins
 * ```ts
 * import assert from "node:assert/strict";
 * import { newcombeDifference, newcombePairedDifference } from "./proportion_interval.ts";
 *
 * // both·neither − first·second = 10·10 − 10·10 = 0: φ = 0
 * const paired = newcombePairedDifference(10, 10, 10, 10);
 * const independent = newcombeDifference(20, 40, 20, 40);
 * assert.deepEqual([paired.low, paired.high].map((x) => x.toFixed(12)), [independent.low, independent.high].map((x) => x.toFixed(12)));
 * ```
 */
export function newcombePairedDifference(
  both: number,
  first: number,
  second: number,
  neither: number,
  z = Z95,
): Interval {
  const counts = [both, first, second, neither];
  if (counts.some((c) => !Number.isInteger(c) || c < 0) || counts.every((c) => c === 0)) {
    throw new RangeError(`Invalid paired counts: needs integers ≥ 0, not all 0, current value is ${counts.join(", ")}`);
  }
  const n = both + first + second + neither;
  const a = wilsonInterval(both + first, n, z);
  const b = wilsonInterval(both + second, n, z);
  const margins = (both + first) * (second + neither) * (both + second) * (first + neither);
  const cross = both * neither - first * second;
  const adjusted = cross > n / 2 ? cross - n / 2 : cross < 0 ? cross : 0;
  const phi = margins === 0 ? 0 : adjusted / Math.sqrt(margins);
  const [dl1, du1, dl2, du2] = [a.estimate - a.low, a.high - a.estimate, b.estimate - b.low, b.high - b.estimate];
  const d = (first - second) / n;
  return {
    estimate: d,
    low: d - Math.sqrt(dl1 * dl1 - 2 * phi * dl1 * du2 + du2 * du2),
    high: d + Math.sqrt(du1 * du1 - 2 * phi * du1 * dl2 + dl2 * dl2),
  };
}
