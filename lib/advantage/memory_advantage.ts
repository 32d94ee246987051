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
   * written at the same turn index of the same question's trajectories
   * (normalising per turn index is biased when the policy controls how many
   * turns it takes: verl issue #7244). @default "question"
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
 * The turn pool has its own bias: normalising per-turn advantages per turn
 * index is biased when turn counts vary (verl issue #7244): how many turn
 * cells a trajectory enters, and so how many baselines it is measured
 * against, is set by the turn at which the policy itself chose to stop, which
 * makes the baseline depend on the action and rewards or penalises taking
 * another turn. Neither pool is free of bias; the question pool is MemPO's.
 *
 * Source: MemPO (arXiv:2603.00680), memory-level advantage;
 * verl issue #7244 (per-turn-index normalisation under variable turn counts).
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

/** Inputs of {@linkcode infomemAdvantages}. */
export interface InfomemAdvantageInputs {
  /** R^M per trajectory and turn, `[N][turns]`, `null` where a turn has no memory reward. */
  rewards: readonly (readonly (number | null)[])[];
  /** The question of each trajectory, `[N]`. */
  groupIds: readonly (string | number)[];
  /** The outcome reward of each trajectory, `[N]` (1 = right). */
  outcomes: readonly number[];
}

/**
 * InfoMem's gate on MemPO's memory advantage: memory rewards count only on
 * trajectories whose outcome is right, and are normalised (with the GRPO
 * normaliser, pooled as {@linkcode memoryAdvantages} pools) among those
 * before they are combined with the outcome advantage.
 *
 * ```text
 * right(i)  = outcome_i = 1
 * A^M(i, t) = memoryAdvantages({R^M(j, s) : right(j)})(i, t)   if right(i) and R^M(i, t) ≠ null
 *           = 0                                                if not right(i) and R^M(i, t) ≠ null
 *           = null                                             where R^M(i, t) = null (no memory credit)
 * then, as MemPO:  finalAdv = A^T + memCoef · A^M on the ⟨mem⟩ span of turn t (combineAdvantages)
 * ```
 *
 * A wrong trajectory's memories get no memory advantage (only A^T, which is
 * negative or 0), so the memory credit can never push up a memory that did not
 * lead to a right answer: its anchor is the outcome. When every trajectory is
 * right this is MemPO's memory advantage exactly.
 *
 * The InfoMem paper rewards the final memory of chunk-wise memory agents by
 * the gain in the answer's per-token log-likelihood, "only to successful
 * trajectories" and "normalized before reward composition" (its abstract);
 * its exact normaliser could not be read here, so this is this package's
 * reading of that sentence on MemPO's per-turn R^M: the gate on the outcome
 * and the same GRPO normaliser (ε, std convention, pool) as MemPO's.
 *
 * Shapes: `rewards [N][turns]`, `groupIds [N]`, `outcomes [N]` → `[N][turns]`.
 *
 * Source: Han et al. 2026 (InfoMem, arXiv:2606.03329), abstract; MemPO (arXiv:2603.00680) for R^M and A^M.
 *
 * @param inputs Memory rewards, question ids and outcome rewards.
 * @param options The normaliser and pool (as {@linkcode memoryAdvantages}).
 * @returns A^M per trajectory and turn (`null` kept; 0 on wrong trajectories).
 *
 * @example Three trajectories of one question; the second is wrong
 * ```ts
 * import assert from "node:assert/strict";
 * import { assertAllClose } from "../testing/all_close.ts";
 * import { infomemAdvantages } from "./memory_advantage.ts";
 *
 * const a = infomemAdvantages({
 *   rewards: [[null, 0.1, 0.3], [null, 0.9], [null, -0.1]],
 *   groupIds: ["q", "q", "q"],
 *   outcomes: [1, 0, 1],
 * }, { epsilon: 0 });
 * // pool of the right trajectories {0.1, 0.3, −0.1}: μ = 0.1, Bessel σ = 0.2; the wrong one's 0.9 is left out
 * assertAllClose([a[0]![1], a[0]![2], a[2]![1]] as number[], [0, 1, -1]);
 * assert.deepEqual(a[1], [null, 0]);
 * assert.equal(a[0]![0], null);
 * ```
 */
export function infomemAdvantages(
  inputs: InfomemAdvantageInputs,
  options: MemoryAdvantageOptions = {},
): (number | null)[][] {
  const { rewards, groupIds, outcomes } = inputs;
  const fn = "infomemAdvantages";
  if (!Array.isArray(rewards) || !rewards.every((row) => Array.isArray(row))) {
    throw new TypeError(`Cannot compute ${fn}: rewards must be per trajectory and turn ([N][turns])`);
  }
  const N = assertVector(outcomes, "outcomes", fn);
  if (N !== rewards.length) {
    throw new TypeError(
      `Cannot compute ${fn}: outcomes must have one reward per trajectory (${rewards.length}), current length is ${N}`,
    );
  }
  const right = outcomes.map((o) => o === 1);
  const gated = memoryAdvantages({
    rewards: rewards.map((row, i) => (right[i] ? row : row.map(() => null))),
    groupIds,
  }, options);
  return rewards.map((row, i) => (right[i] ? gated[i]! : row.map((r) => (r === null ? null : 0))));
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
 * so token weighting turns a zero-mean A^M into a net push down
 * (docs/research/memory_advantage.md#the-mechanism-a-turn-index-confound-and-token-weighting).
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
 * Source: MemPO (arXiv:2603.00680), final advantage = outcome advantage + memory advantage on ⟨mem⟩.
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
