/**
 * MemPO's memory advantage (pooled per question) and its combination with the
 * trajectory's outcome advantage on the `<mem>` spans.
 *
 * @module
 */
import { assertBinaryMask, assertMatrix, assertVector, type Matrix } from "./_validate.ts";
import { type GrpoAdvantageOptions, grpoAdvantages } from "./grpo.ts";

/** Inputs of {@linkcode memoryAdvantages}. */
export interface MemoryAdvantageInputs {
  /**
   * R^M per turn: flat `[M]`, or per trajectory `[N][turns]` with `null`
   * where a turn has no memory reward (turn 1, or no `<mem>` span).
   */
  rewards: readonly number[] | readonly (readonly (number | null)[])[];
  /** The question of each entry of `rewards` (flat) or of each trajectory (nested). */
  groupIds: readonly (string | number)[];
}

/** Options of {@linkcode memoryAdvantages}: the GRPO normaliser's, and the pool. */
export interface MemoryAdvantageOptions extends GrpoAdvantageOptions {
  /**
   * What a memory is compared with (nested rewards only): `"question"`, every
   * turn of every trajectory of its question (MemPO); `"turn"`, the memories
   * written at the same turn index of the same question's trajectories. @default "question"
   */
  pool?: "question" | "turn";
}

/**
 * Normalises memory rewards within each question, pooling every turn of every
 * trajectory of that question, with the GRPO normaliser (same ε/std options).
 *
 * ```text
 * A^M(i, t) = (R^M(i, t) − μ_q) / (σ_q + ε),   μ_q, σ_q over {R^M(j, s) : j asks question q, s ≥ 2}
 * pool "turn":  μ_{q,t}, σ_{q,t} over {R^M(j, t) : j asks question q}   (a lone one: GRPO's singleton rule, R^M kept)
 * ```
 *
 * Shapes: flat `[M]` → `[M]`; nested `[N][turns]` → the same nesting, `null` kept.
 * The `"turn"` pool is not MemPO's: a later memory must carry more answers
 * and its full history holds more documents, so R^M falls with the turn
 * index, and the question pool turns "written late" into a negative advantage.
 *
 * Source: MemPO (arXiv:2603.00680), memory-level advantage; seed note 000 §1.3.
 * Reference: MemPO `compute_grpo_memory_advantage` (calls the GRPO normaliser).
 *
 * @param inputs Memory rewards and their question ids.
 * @param options ε, std convention, std scaling (see `grpoAdvantages`); the pool.
 * @returns Memory advantages in the shape of `inputs.rewards`.
 *
 * @example Two trajectories of one question; turn 1 has no memory reward
 * ```ts
 * import { assertAllClose } from "../testing/all_close.ts";
 * import { memoryAdvantages } from "./memory_advantage.ts";
 *
 * const a = memoryAdvantages({ rewards: [[null, 0.1, 0.3], [null, -0.1]], groupIds: ["q", "q"] }, { epsilon: 0 });
 * // pool {0.1, 0.3, −0.1}: μ = 0.1, Bessel σ = 0.2
 * assertAllClose(a[0]![2] as number, 1);
 * assertAllClose(a[1]![1] as number, -1);
 * // per turn: {0.1, −0.1} at turn 2 → ±0.707; 0.3 is alone at turn 3 (singleton: μ = 0, σ = 1) → 0.3
 * const b = memoryAdvantages({ rewards: [[null, 0.1, 0.3], [null, -0.1]], groupIds: ["q", "q"] }, { epsilon: 0, pool: "turn" });
 * assertAllClose([b[0]![1], b[0]![2], b[1]![1]] as number[], [Math.SQRT1_2, 0.3, -Math.SQRT1_2]);
 * ```
 */
export function memoryAdvantages(
  inputs: { rewards: readonly number[]; groupIds: readonly (string | number)[] },
  options?: MemoryAdvantageOptions,
): number[];
export function memoryAdvantages(
  inputs: { rewards: readonly (readonly (number | null)[])[]; groupIds: readonly (string | number)[] },
  options?: MemoryAdvantageOptions,
): (number | null)[][];
export function memoryAdvantages(
  inputs: MemoryAdvantageInputs,
  options: MemoryAdvantageOptions = {},
): number[] | (number | null)[][] {
  const { rewards, groupIds } = inputs;
  const { pool = "question", ...normaliser } = options;
  if (pool !== "question" && pool !== "turn") {
    throw new RangeError(
      `Cannot compute memoryAdvantages: pool must be "question" or "turn", current value is ${JSON.stringify(pool)}`,
    );
  }
  if (!Array.isArray(rewards) || rewards.every((r) => typeof r === "number")) {
    if (pool === "turn") {
      throw new TypeError(
        `Cannot compute memoryAdvantages: pool "turn" needs rewards per trajectory and turn ([N][turns]), current rewards are flat`,
      );
    }
    return grpoAdvantages(rewards as number[], groupIds, normaliser);
  }
  if (groupIds.length !== rewards.length) {
    throw new TypeError(
      `Cannot compute memoryAdvantages: groupIds must have one id per trajectory (${rewards.length}), current length is ${groupIds.length}`,
    );
  }
  const flat: number[] = [];
  const ids: (string | number)[] = [];
  const poolIds = new Map<string, number>(); // (question, turn) → pool index, for pool "turn"
  const poolOf = (id: string | number, turn: number) => {
    const key = JSON.stringify([typeof id, id, turn]);
    if (!poolIds.has(key)) poolIds.set(key, poolIds.size);
    return poolIds.get(key)!;
  };
  (rewards as (readonly (number | null)[])[]).forEach((row, i) => {
    if (!Array.isArray(row)) {
      throw new TypeError(
        `Cannot compute memoryAdvantages: rewards[${i}] must be an array of turns, current value is ${String(row)}`,
      );
    }
    row.forEach((r, t) => {
      if (r !== null) {
        flat.push(r);
        ids.push(pool === "turn" ? poolOf(groupIds[i]!, t) : groupIds[i]!);
      }
    });
  });
  const adv = grpoAdvantages(flat, ids, normaliser);
  let k = 0;
  return (rewards as (readonly (number | null)[])[]).map((row) => row.map((r) => (r === null ? null : adv[k++]!)));
}

/**
 * Scales that give every `<mem>` span the same total weight in a token-mean
 * loss: span s's A^M is multiplied by L̄ / L_s on each of its L_s tokens, so
 * it contributes L̄ · A^M_s whatever its length. Not MemPO's (which puts A^M
 * on every token, so longer memories weigh more); with the question pool
 * (Σ_s A^M_s = 0 per question) the memory advantage then adds no net push.
 *
 * ```text
 * scale_s = L̄ / L_s,   L̄ = mean of L_s over the spans with L_s > 0   (an empty span: 1, it has no tokens)
 * ```
 *
 * Shapes: `[S]` → `[S]`.
 *
 * Source: this package (an ablation of MemPO, arXiv:2603.00680): on its corpus later memories are longer and score lower,
 * so token weighting turns a zero-mean A^M into a net push down (README, Measured).
 *
 * @param lengths Token count of each span that receives a memory advantage (all spans of one RL batch).
 * @returns The scale of each span.
 *
 * @example Spans of 2, 4 and 6 tokens: L̄ = 4
 * ```ts
 * import { assertAllClose } from "../testing/all_close.ts";
 * import { spanLengthScales } from "./memory_advantage.ts";
 *
 * assertAllClose(spanLengthScales([2, 4, 6]), [2, 1, 2 / 3]);
 * ```
 */
export function spanLengthScales(lengths: readonly number[]): number[] {
  if (!Array.isArray(lengths)) {
    throw new TypeError(
      `Cannot compute spanLengthScales: lengths must be an array, current value is ${String(lengths)}`,
    );
  }
  lengths.forEach((L, s) => {
    if (!Number.isInteger(L) || L < 0) {
      throw new RangeError(
        `Cannot compute spanLengthScales: lengths[${s}] must be a non-negative integer, current value is ${L}`,
      );
    }
  });
  const nonEmpty = lengths.filter((L) => L > 0);
  const mean = nonEmpty.reduce((a, b) => a + b, 0) / nonEmpty.length;
  return lengths.map((L) => (L > 0 ? mean / L : 1));
}

/** A token span `[start, end)` of one row that receives a memory advantage. */
export interface MemorySpan {
  /** First token index (inclusive). */
  start: number;
  /** One past the last token index. */
  end: number;
  /** A^M of the turn whose `<mem>` content (and closing tag) this span covers. */
  advantage: number;
}

/** Inputs of {@linkcode combineAdvantages}. */
export interface CombineAdvantageInputs {
  /** A^T, the outcome advantage of each row's trajectory, `[B]`. */
  outcomeAdvantages: readonly number[];
  /** The `<mem>` spans of each row and their A^M, `[B][k]` (empty for turn 1). */
  memorySpans: readonly (readonly MemorySpan[])[];
  /** 1 = policy-sampled token, `[B][T]`. */
  mask: Matrix;
}

/** Options of {@linkcode combineAdvantages}. */
export interface CombineAdvantageOptions {
  /** Weight of the memory advantage. @default 1 */
  memCoef?: number;
}

/**
 * The per-token advantage MemPO trains with: the trajectory's outcome
 * advantage everywhere, plus the turn's memory advantage on its `<mem>` span.
 *
 * ```text
 * finalAdv[b][t] = mask[b][t] · (A^T_b + memCoef · Σ_{spans s of b, t ∈ s} A^M_s)
 * ```
 *
 * Shapes: `outcomeAdvantages [B]`, `memorySpans [B][k]`, `mask [B][T]` → `[B][T]`.
 *
 * Source: MemPO (arXiv:2603.00680); seed note 000 §1.3.3 (final_adv = outcome_adv + mem_adv on ⟨mem⟩).
 * Reference: MemPO `compute_advantage` (writes A^M into the ⟨mem⟩ interval).
 *
 * @param inputs Outcome advantages, memory spans and the loss mask.
 * @param options `memCoef`.
 * @returns A new `[B][T]` array; 0 where `mask` is 0 (verl multiplies by the response mask).
 *
 * @example The seed: A^T = 0.8, A^M = −1.22 on turn 1's memory and +0.33 on turn 2's
 * ```ts
 * import { assertAllClose } from "../testing/all_close.ts";
 * import { combineAdvantages } from "./memory_advantage.ts";
 *
 * const adv = combineAdvantages({
 *   outcomeAdvantages: [0.8],
 *   memorySpans: [[{ start: 0, end: 2, advantage: -1.22 }, { start: 4, end: 6, advantage: 0.33 }]],
 *   mask: [[1, 1, 1, 1, 1, 1, 1]],
 * });
 * assertAllClose(adv, [[-0.42, -0.42, 0.8, 0.8, 1.13, 1.13, 0.8]], { rtol: 1e-9, atol: 1e-12 });
 * ```
 */
export function combineAdvantages(inputs: CombineAdvantageInputs, options: CombineAdvantageOptions = {}): number[][] {
  const { memCoef = 1 } = options;
  const fn = "combineAdvantages";
  if (!Number.isFinite(memCoef)) {
    throw new RangeError(`Cannot compute ${fn}: memCoef must be a finite number, current value is ${memCoef}`);
  }
  const { outcomeAdvantages, memorySpans, mask } = inputs;
  const B = assertVector(outcomeAdvantages, "outcomeAdvantages", fn);
  const [mb, T] = assertMatrix(mask, "mask", fn);
  assertBinaryMask(mask, "mask", fn);
  if (mb !== B || !Array.isArray(memorySpans) || memorySpans.length !== B) {
    throw new TypeError(
      `Cannot compute ${fn}: mask and memorySpans must have ${B} rows like outcomeAdvantages, current values have ${mb} and ${
        Array.isArray(memorySpans) ? memorySpans.length : "none"
      }`,
    );
  }
  return mask.map((row, b) => {
    const out = row.map(() => outcomeAdvantages[b]!);
    memorySpans[b]!.forEach((s: MemorySpan, k: number) => {
      if (!(Number.isInteger(s.start) && Number.isInteger(s.end) && 0 <= s.start && s.start <= s.end && s.end <= T)) {
        throw new RangeError(
          `Cannot compute ${fn}: memorySpans[${b}][${k}] must satisfy 0 ≤ start ≤ end ≤ ${T}, current value is [${s.start}, ${s.end})`,
        );
      }
      if (!Number.isFinite(s.advantage)) {
        throw new RangeError(
          `Cannot compute ${fn}: memorySpans[${b}][${k}].advantage must be finite, current value is ${s.advantage}`,
        );
      }
      for (let t = s.start; t < s.end; t++) out[t]! += memCoef * s.advantage;
    });
    return out.map((a, t) => (row[t] === 1 ? a : 0));
  });
}
