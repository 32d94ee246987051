/**
 * Masked whitening of advantages (the only whitening in the package).
 *
 * @module
 */
import { assertBinaryMask, assertMatrix, assertShapeEqual, type Matrix } from "./_validate.ts";

/** Options of {@linkcode maskedWhiten}. */
export interface MaskedWhitenOptions {
  /** Bessel-corrected variance (verl); `false` = biased variance (MiniMind). @default true */
  unbiased?: boolean;
  /** Subtract the mean; `false` adds μ back after scaling. @default true */
  shiftMean?: boolean;
}

/**
 * Standardises `x` with the mean and variance of its masked entries.
 *
 * ```text
 * n = Σ m,   μ = Σ m·x / (n + 1e-8),   σ² = Σ m·(x − μ)² / (n + 1e-8) · (n / (n − 1) if unbiased)
 * out = (x − μ) / sqrt(σ² + 1e-8)          (+ μ when shiftMean = false)
 * ```
 *
 * Positions with mask 0 are transformed like the others (verl); multiply by
 * the mask for MiniMind's output, which zeroes them.
 *
 * Shapes: `x`, `mask` `[B][T]` → `[B][T]`.
 *
 * Source: Schulman et al. 2017 (PPO, arXiv:1707.06347) — advantage
 * normalisation, as in OpenAI baselines `ppo2`.
 * Reference: verl `verl/utils/torch_functional.py` `masked_whiten`,
 * `masked_var`; MiniMind `train_ppo.py` (biased variance).
 *
 * @param x Values `[B][T]`.
 * @param mask 1 = statistics include the entry, `[B][T]`.
 * @param options Variance convention and mean shift.
 * @returns A new `[B][T]` array.
 *
 * @example Three valid tokens 1, 2, 3 → −1, 0, 1 (unbiased σ = 1)
 * ```ts
 * import { assertAllClose } from "../testing/all_close.ts";
 * import { maskedWhiten } from "./whiten.ts";
 *
 * const out = maskedWhiten([[1, 2, 3, 99]], [[1, 1, 1, 0]]);
 * assertAllClose(out[0]!.slice(0, 3), [-1, 0, 1], { atol: 1e-7 }); // μ = 6 / (3 + 1e-8), as verl
 * ```
 */
export function maskedWhiten(x: Matrix, mask: Matrix, options: MaskedWhitenOptions = {}): number[][] {
  const { unbiased = true, shiftMean = true } = options;
  const fn = "maskedWhiten";
  const shape = assertMatrix(x, "x", fn);
  assertShapeEqual(shape, assertMatrix(mask, "mask", fn), "x", "mask", fn);
  assertBinaryMask(mask, "mask", fn);
  let n = 0;
  let s = 0;
  x.forEach((row, b) =>
    row.forEach((v, t) => {
      if (mask[b]![t]) {
        n += 1;
        s += v;
      }
    })
  );
  if (unbiased && n <= 1) {
    throw new RangeError(
      `Cannot compute maskedWhiten: the unbiased variance needs Σ mask ≥ 2, current value is ${n} (pass unbiased: false for the biased variance)`,
    );
  }
  const mean = s / (n + 1e-8);
  let ss = 0;
  x.forEach((row, b) =>
    row.forEach((v, t) => {
      if (mask[b]![t]) ss += (v - mean) ** 2;
    })
  );
  let variance = ss / (n + 1e-8);
  if (unbiased) variance *= n / (n - 1);
  const inv = 1 / Math.sqrt(variance + 1e-8);
  return x.map((row) => row.map((v) => (v - mean) * inv + (shiftMean ? 0 : mean)));
}
