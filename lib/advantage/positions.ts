/**
 * Which logit scores which response token: the off-by-one at the heart of
 * every LLM policy-gradient implementation.
 *
 * @module
 */

/**
 * Positions of the logits that score each response token.
 *
 * A causal LM's logits at position `i` predict token `i + 1`. With a prompt
 * of `P` tokens followed by the response, response token `j` (0-based) sits at
 * position `P + j` and is scored by the logits at `P − 1 + j`.
 *
 * ```text
 * positions[b][j] = promptLens[b] − 1 + j,   j = 0 … responseLen − 1
 * ```
 *
 * Shapes: `promptLens [B]` → `[B][responseLen]`.
 *
 * Source: Ouyang et al. 2022 (arXiv:2203.02155) — the policy is the LM's
 * next-token distribution over the response.
 * Reference: MiniMind `train_ppo.py` `logp_pos = prompt_lens − 1 + resp_idx`;
 * verl takes `logits[:, −response_length − 1 : −1]` (right-aligned prompts).
 *
 * @param promptLens Real (unpadded) prompt length of each row, ≥ 1.
 * @param responseLen Number of response tokens per row, ≥ 0.
 * @returns `[B][responseLen]` logit positions.
 *
 * @example A 3-token prompt and a 2-token prompt, 2 response tokens each
 * ```ts
 * import assert from "node:assert/strict";
 * import { responseLogProbPositions } from "./positions.ts";
 *
 * assert.deepEqual(responseLogProbPositions([3, 2], 2), [[2, 3], [1, 2]]);
 * ```
 */
export function responseLogProbPositions(promptLens: readonly number[], responseLen: number): number[][] {
  if (!Number.isInteger(responseLen) || responseLen < 0) {
    throw new RangeError(
      `Cannot compute responseLogProbPositions: responseLen must be a non-negative integer, current value is ${responseLen}`,
    );
  }
  return promptLens.map((p, b) => {
    if (!Number.isInteger(p) || p < 1) {
      throw new RangeError(
        `Cannot compute responseLogProbPositions: promptLens[${b}] must be an integer ≥ 1, current value is ${p}`,
      );
    }
    return Array.from({ length: responseLen }, (_, j) => p - 1 + j);
  });
}
