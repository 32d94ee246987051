/**
 * GRPO's group-relative outcome advantage: the one normaliser of the package
 * (MemPO's memory advantage calls it too).
 *
 * @module
 */
import { assertVector } from "./_validate.ts";

/** Standard-deviation convention of {@linkcode grpoAdvantages}. */
export type GroupStd = "bessel" | "population";

/** Options of {@linkcode grpoAdvantages}. */
export interface GrpoAdvantageOptions {
  /** ε added to σ. @default 1e-6 (verl); MiniMind uses 1e-4 */
  epsilon?: number;
  /** Divide by σ + ε; `false` = Dr.GRPO (arXiv:2503.20783). @default true */
  normByStd?: boolean;
  /** `"bessel"` (verl, divide by G − 1) or `"population"` (MiniMind, divide by G). @default "bessel" */
  std?: GroupStd;
}

/**
 * Advantage of each completion relative to the other completions of the same
 * prompt: (s − mean) / (std + ε) within its group.
 *
 * ```text
 * Â_i = (s_i − μ_g) / (σ_g + ε)        g = group of i (same groupId)
 * bessel:     σ_g² = Σ (s − μ_g)² / (G − 1);  a singleton group uses μ = 0, σ = 1 (verl)
 * population: σ_g² = Σ (s − μ_g)² / G;        a singleton group has σ = 0, so Â = 0
 * all-equal group → Â = 0;   normByStd = false → Â_i = s_i − μ_g
 * ```
 *
 * Groups are formed by id, in any order and of any size (no reshape to
 * `[numPrompts, G]` needed).
 *
 * Shapes: `scores [N]`, `groupIds [N]` → `[N]`.
 *
 * Source: Shao et al. 2024 (DeepSeekMath, arXiv:2402.03300) §4.1.2, outcome
 * supervision; Liu et al. 2025 (Dr.GRPO, arXiv:2503.20783) §3.2 for
 * `normByStd: false`.
 * Reference: verl `core_algos.py` `compute_grpo_outcome_advantage`; MiniMind
 * `train_grpo.py` (`std(unbiased=False)`, `+ 1e-4`).
 *
 * @param scores One scalar score per completion.
 * @param groupIds The prompt each completion belongs to.
 * @param options ε, std convention and Dr.GRPO switch.
 * @returns A new `[N]` array of advantages.
 *
 * @example One right and one wrong answer; a singleton group
 * ```ts
 * import { assertAllClose } from "../testing/all_close.ts";
 * import { grpoAdvantages } from "./grpo.ts";
 *
 * // group "a": μ = 0.5, Bessel σ = √0.5; group "b" is a singleton: μ = 0, σ = 1
 * assertAllClose(grpoAdvantages([1, 0, 0.7], ["a", "a", "b"], { epsilon: 0 }), [Math.SQRT1_2, -Math.SQRT1_2, 0.7]);
 * ```
 */
export function grpoAdvantages(
  scores: readonly number[],
  groupIds: readonly (string | number)[],
  options: GrpoAdvantageOptions = {},
): number[] {
  const { epsilon = 1e-6, normByStd = true, std = "bessel" } = options;
  const fn = "grpoAdvantages";
  const N = assertVector(scores, "scores", fn);
  if (!Array.isArray(groupIds) || groupIds.length !== N) {
    throw new TypeError(
      `Cannot compute ${fn}: groupIds must have one id per score (${N}), current length is ${
        Array.isArray(groupIds) ? groupIds.length : "none"
      }`,
    );
  }
  if (!(Number.isFinite(epsilon) && epsilon >= 0)) {
    throw new RangeError(`Cannot compute ${fn}: epsilon must be a finite number ≥ 0, current value is ${epsilon}`);
  }
  if (std !== "bessel" && std !== "population") {
    throw new RangeError(
      `Cannot compute ${fn}: std must be "bessel" or "population", current value is ${JSON.stringify(std)}`,
    );
  }
  const members = new Map<string | number, number[]>();
  groupIds.forEach((id, i) => {
    if (typeof id !== "string" && typeof id !== "number") {
      throw new TypeError(
        `Cannot compute ${fn}: groupIds[${i}] must be a string or number, current value is ${String(id)}`,
      );
    }
    const list = members.get(id);
    if (list === undefined) members.set(id, [i]);
    else list.push(i);
  });
  const out = new Array<number>(N).fill(0);
  for (const idx of members.values()) {
    const G = idx.length;
    const values = idx.map((i) => scores[i]!);
    let mean: number;
    let sigma: number;
    if (G === 1 && std === "bessel") {
      mean = 0;
      sigma = 1;
    } else {
      mean = values.reduce((a, b) => a + b, 0) / G;
      const ss = values.reduce((a, v) => a + (v - mean) ** 2, 0);
      sigma = Math.sqrt(ss / (std === "bessel" ? G - 1 : G));
    }
    const allEqual = G > 1 && values.every((v) => v === values[0]);
    idx.forEach((i) => {
      if (allEqual || (G === 1 && std === "population")) out[i] = 0;
      else out[i] = normByStd ? (scores[i]! - mean) / (sigma + epsilon) : scores[i]! - mean;
    });
  }
  return out;
}
