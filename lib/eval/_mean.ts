// The arithmetic mean shared by the evaluation's summaries and compare's (one home for the formula).

/** Σ xs / |xs| (NaN for an empty list: callers decide what no value means). */
export function mean(xs: readonly number[]): number {
  return xs.reduce((a, b) => a + b, 0) / xs.length;
}
