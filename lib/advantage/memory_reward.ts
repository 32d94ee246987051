/**
 * MemPO's memory reward: how well a turn's `<mem>` alone predicts the gold
 * answer, compared with the whole history.
 *
 * @module
 */
import { assertBinaryMask, assertMatrix, assertShapeEqual, type Matrix } from "./_validate.ts";

/** Inputs of {@linkcode memoryReward}, all `[N][A]` (N turns, A answer tokens). */
export interface MemoryRewardInputs {
  /** log π(a_k | system + question + ⟨mem⟩_t + answer prefix), teacher-forced. */
  memAnswerLogProbs: Matrix;
  /** log π(a_k | full history before turn t + answer prefix), teacher-forced. */
  fullAnswerLogProbs: Matrix;
  /** 1 = a gold-answer token (not the `<think>`/`<answer>` scaffolding or padding). */
  answerMask: Matrix;
}

/** Options of {@linkcode memoryReward}. */
export interface MemoryRewardOptions {
  /**
   * Keep only answer tokens with probability above this (per context:
   * log π > log threshold); an empty kept set gives P = 0. Off when undefined
   * or 0 (0 keeps every token). MemPO's code uses 0.5.
   */
  threshold?: number;
  /**
   * Multiply P by the share of answer tokens kept, |K| / |A| (not MemPO's).
   * With a threshold, MemPO's P is the geometric mean over the *kept* tokens
   * only, so a context confident about fewer answers can score higher than one
   * confident about all of them (each kept π < 1 lowers the mean); with the
   * share, an answer the context cannot give counts against it. No effect
   * without a threshold (every answer token is kept). @default false
   */
  coverage?: boolean;
}

/** Result of {@linkcode memoryReward}, all `[N]`. */
export interface MemoryRewardResult {
  /** P_mem = exp(mean of kept memory-context log-probs). */
  pMem: number[];
  /** P_full = exp(mean of kept full-context log-probs). */
  pFull: number[];
  /** R^M = P_mem − P_full. */
  reward: number[];
}

function geometricMeanProb(
  logProbs: readonly number[],
  mask: readonly number[],
  threshold: number | undefined,
  coverage: boolean,
): number {
  const cut = threshold === undefined ? -Infinity : Math.log(threshold);
  let s = 0;
  let n = 0;
  let answers = 0;
  logProbs.forEach((lp, k) => {
    if (mask[k] !== 1) return;
    answers += 1;
    if (lp > cut) {
      s += lp;
      n += 1;
    }
  });
  return n === 0 ? 0 : Math.exp(s / n) * (coverage ? n / answers : 1);
}

/**
 * The memory reward of MemPO for a batch of turns.
 *
 * ```text
 * P_mem(t)  = exp(mean_{k ∈ K_mem}  log π(a_k | sys + question + ⟨mem⟩_t + prefix))
 * P_full(t) = exp(mean_{k ∈ K_full} log π(a_k | full history before t + prefix))
 * R^M(t)    = P_mem(t) − P_full(t)
 * K = {k : answerMask_k = 1}  (∩ {log π_k > log threshold} with a threshold; empty K → P = 0)
 * coverage:  P ← P · |K| / |{k : answerMask_k = 1}|   (not MemPO's)
 * ```
 *
 * Shapes: three `[N][A]` arrays → three `[N]` arrays.
 *
 * Source: MemPO (Self-Memory Policy Optimization, arXiv:2603.00680), the
 * information-sufficiency memory reward.
 * Reference: MemPO `_postprocess` (ans_mask, the log 0.5 threshold mask).
 *
 * @param inputs Teacher-forced answer log-probs under both contexts and the answer mask.
 * @param options Optional confidence threshold; `coverage` (not MemPO's).
 * @returns P_mem, P_full and their difference per turn.
 *
 * @example The seed's first turn: memory predicts the answer worse than the history
 * ```ts
 * import { assertAllClose } from "../testing/all_close.ts";
 * import { memoryReward } from "./memory_reward.ts";
 *
 * const r = memoryReward({
 *   memAnswerLogProbs: [[-9, Math.log(0.12), Math.log(0.12)]],
 *   fullAnswerLogProbs: [[-9, Math.log(0.35), Math.log(0.35)]],
 *   answerMask: [[0, 1, 1]], // token 0 is the <answer> tag: not scored
 * });
 * assertAllClose(r.reward, [-0.23]);
 *
 * // threshold 0.5: a memory sure of one answer of two (0.9) outscores a history sure of both (0.9, 0.8);
 * // with coverage the missing answer counts against it
 * const two = {
 *   memAnswerLogProbs: [[Math.log(0.9), Math.log(0.1)]],
 *   fullAnswerLogProbs: [[Math.log(0.9), Math.log(0.8)]],
 *   answerMask: [[1, 1]],
 * };
 * assertAllClose(memoryReward(two, { threshold: 0.5 }).reward, [0.9 - Math.sqrt(0.72)]);
 * assertAllClose(memoryReward(two, { threshold: 0.5, coverage: true }).reward, [0.45 - Math.sqrt(0.72)]);
 * ```
 */
export function memoryReward(inputs: MemoryRewardInputs, options: MemoryRewardOptions = {}): MemoryRewardResult {
  const { threshold, coverage = false } = options;
  const fn = "memoryReward";
  if (typeof coverage !== "boolean") {
    throw new TypeError(`Cannot compute ${fn}: coverage must be true or false, current value is ${String(coverage)}`);
  }
  if (threshold !== undefined && !(threshold >= 0 && threshold < 1)) {
    throw new RangeError(`Cannot compute ${fn}: threshold must be in [0, 1), current value is ${threshold}`);
  }
  const { memAnswerLogProbs, fullAnswerLogProbs, answerMask } = inputs;
  const shape = assertMatrix(answerMask, "answerMask", fn);
  assertShapeEqual(
    shape,
    assertMatrix(memAnswerLogProbs, "memAnswerLogProbs", fn),
    "answerMask",
    "memAnswerLogProbs",
    fn,
  );
  assertShapeEqual(
    shape,
    assertMatrix(fullAnswerLogProbs, "fullAnswerLogProbs", fn),
    "answerMask",
    "fullAnswerLogProbs",
    fn,
  );
  assertBinaryMask(answerMask, "answerMask", fn);
  const pMem = memAnswerLogProbs.map((row, i) => geometricMeanProb(row, answerMask[i]!, threshold, coverage));
  const pFull = fullAnswerLogProbs.map((row, i) => geometricMeanProb(row, answerMask[i]!, threshold, coverage));
  return { pMem, pFull, reward: pMem.map((p, i) => p - pFull[i]!) };
}
