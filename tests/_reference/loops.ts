// Deliberately slow, obvious float64 loops used as oracles (and for finite differences).
import type { AggMode, AggregateOptions } from "../../lib/tensor/aggregate_loss.ts";

type M = number[][];

export function refMaskedSum(x: M, m: M): number {
  let s = 0;
  for (let b = 0; b < x.length; b++) for (let t = 0; t < x[b]!.length; t++) if (m[b]![t]) s += x[b]![t]! * m[b]![t]!;
  return s;
}

export function refMaskedMean(x: M, m: M): number {
  let n = 0;
  for (const row of m) for (const v of row) n += v;
  return refMaskedSum(x, m) / Math.max(n, 1);
}

export function refAggregate(L: M, m: M, mode: AggMode, o: AggregateOptions = {}): number {
  const dp = o.dpSize ?? 1;
  const T = m[0]!.length;
  const rowSums = L.map((r, b) => r.reduce((a, v, t) => a + (m[b]![t] ? v : 0), 0));
  const rowCounts = m.map((r) => r.reduce((a, v) => a + v, 0));
  const nonEmpty = rowCounts.filter((c) => c > 0).length;
  const tokens = rowCounts.reduce((a, c) => a + c, 0);
  switch (mode) {
    case "token-mean":
      return rowSums.reduce((a, s) => a + s, 0) / (o.batchNumTokens ?? Math.max(tokens, 1)) * dp;
    case "token-sum":
      return rowSums.reduce((a, s) => a + s, 0) * dp;
    case "seq-mean-token-sum":
    case "seq-mean-token-sum-norm": {
      const v = rowSums.reduce((a, s, b) => a + (rowCounts[b]! > 0 ? s : 0), 0) /
        (o.globalBatchSize ?? Math.max(nonEmpty, 1)) * dp;
      return mode === "seq-mean-token-sum" ? v : v / (o.lossScaleFactor ?? T);
    }
    case "seq-mean-token-mean":
      return rowSums.reduce((a, s, b) => a + (rowCounts[b]! > 0 ? s / rowCounts[b]! : 0), 0) /
        (o.globalBatchSize ?? Math.max(nonEmpty, 1)) * dp;
  }
}

export interface RefPpo {
  clipLow?: number;
  clipHigh?: number;
  dualClip?: number;
  aggMode?: AggMode;
}

export function refPpoMatrix(lp: M, old: M, adv: M, o: RefPpo = {}): M {
  const { clipLow = 0.2, clipHigh = 0.2, dualClip = 3 } = o;
  return lp.map((row, b) =>
    row.map((l, t) => {
      const a = adv[b]![t]!;
      const ratio = Math.exp(Math.min(20, Math.max(-20, l - old[b]![t]!)));
      const clipped = Math.min(Math.max(ratio, 1 - clipLow), 1 + clipHigh);
      let loss = Math.max(-a * ratio, -a * clipped);
      if (a < 0 && Number.isFinite(dualClip)) loss = Math.min(loss, -a * dualClip);
      return loss;
    })
  );
}

export function refPpoLoss(lp: M, old: M, adv: M, m: M, o: RefPpo = {}): number {
  return refAggregate(refPpoMatrix(lp, old, adv, o), m, o.aggMode ?? "token-mean");
}

export function refValueLoss(v: M, old: M, ret: M, m: M, clipRange = 0.5, mode: AggMode = "token-mean"): number {
  const L = v.map((row, b) =>
    row.map((x, t) => {
      const o = old[b]![t]!;
      const r = ret[b]![t]!;
      const vc = Math.max(Math.min(x, o + clipRange), o - clipRange);
      return Math.max((x - r) ** 2, (vc - r) ** 2);
    })
  );
  return 0.5 * refAggregate(L, m, mode);
}

export function refKl(lp: number, ref: number, estimator: string): number {
  const d = lp - ref;
  switch (estimator) {
    case "k1":
      return d;
    case "abs":
      return Math.abs(d);
    case "k2":
      return 0.5 * d * d;
    case "k3":
      return Math.exp(-d) + d - 1;
    case "low_var_kl": {
      const c = Math.min(20, Math.max(-20, -d));
      return Math.min(10, Math.max(-10, Math.exp(c) - c - 1));
    }
  }
  throw new Error(estimator);
}

export function refCispoLoss(lp: M, old: M, adv: M, m: M, floor: number, cap: number, mode: AggMode): number {
  const L = lp.map((row, b) =>
    row.map((l, t) => {
      const ratio = Math.exp(Math.min(20, Math.max(-20, l - old[b]![t]!)));
      return -Math.min(Math.max(ratio, floor), cap) * adv[b]![t]! * l;
    })
  );
  return refAggregate(L, m, mode);
}

/**
 * GAE as the explicit sum over the sampled tokens at or after t:
 * Â_t = Σ_k (γλ)^k δ_{s_k}, δ_{s_k} = r_{s_k} + γ V_{s_{k+1}} − V_{s_k}, s_0 < s_1 < … the valid indices ≥ t.
 */
export function refGae(r: M, v: M, m: M, gamma: number, lambda: number): M {
  return r.map((row, b) => {
    const valid = row.map((_, t) => t).filter((t) => m[b]![t] === 1);
    return row.map((_, t) => {
      const after = valid.filter((s) => s >= t);
      let sum = 0;
      after.forEach((s, k) => {
        const next = k + 1 < after.length ? v[b]![after[k + 1]!]! : 0;
        const delta = r[b]![s]! + gamma * next - v[b]![s]!;
        sum += (gamma * lambda) ** k * delta;
      });
      return sum;
    });
  });
}
