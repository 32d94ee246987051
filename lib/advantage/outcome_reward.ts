/**
 * Outcome-reward placement: a sequence-level score becomes a token-level
 * reward on the last token the policy sampled.
 *
 * @module
 */
import { assertBinaryMask, assertMatrix, assertVector, type Matrix } from "./_validate.ts";

/**
 * Puts each row's score on its last valid token; every other entry is 0.
 *
 * ```text
 * rewards[b][t] = scores[b]   if t = max{t : mask[b][t] = 1}
 *               = 0           otherwise (and everywhere when the row's mask is empty)
 * ```
 *
 * Shapes: `scores [B]`, `mask [B][T]` → `[B][T]`.
 *
 * Source: Ouyang et al. 2022 (arXiv:2203.02155) §3.5 — the reward model's
 * score arrives at the end of the episode.
 * Reference: MiniMind `train_ppo.py` (`token_rewards[b, last_idx] += rewards`);
 * verl `reward_tensor[i, valid_response_length − 1] = score`.
 *
 * @param scores One scalar score per row.
 * @param mask 1 = policy-sampled token.
 * @returns A new `[B][T]` array.
 *
 * @example A tool span (mask 0) after the last sampled token does not move the reward
 * ```ts
 * import assert from "node:assert/strict";
 * import { placeOutcomeReward } from "./outcome_reward.ts";
 *
 * assert.deepEqual(placeOutcomeReward([1, 0.5], [[1, 1, 0, 0], [1, 0, 1, 1]]), [[0, 1, 0, 0], [0, 0, 0, 0.5]]);
 * ```
 */
export function placeOutcomeReward(scores: readonly number[], mask: Matrix): number[][] {
  const fn = "placeOutcomeReward";
  const B = assertVector(scores, "scores", fn);
  const [mb, T] = assertMatrix(mask, "mask", fn);
  assertBinaryMask(mask, "mask", fn);
  if (mb !== B) {
    throw new TypeError(`Cannot compute ${fn}: mask must have ${B} rows like scores, current value has ${mb}`);
  }
  return mask.map((row, b) => {
    const out = new Array<number>(T).fill(0);
    const last = row.lastIndexOf(1);
    if (last >= 0) out[last] = scores[b]!;
    return out;
  });
}
