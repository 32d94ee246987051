/**
 * The language model as an {@linkcode AgentPolicy}: one batched, KV-cached
 * generation per turn for every active episode.
 *
 * @module
 */
import { generate } from "../model/generate.ts";
import { chunksByTokens } from "../model/score.ts";
import type { Model } from "../model/params.ts";
import type { AgentPolicy, TurnOutput, TurnRequest } from "./rollout.ts";

/** Options of {@linkcode modelPolicy}. */
export interface ModelPolicyOptions {
  /** Padding id. */
  padId: number;
  /** Sampling temperature (0 = greedy, for evaluation). @default 1 */
  temperature?: number;
  /** Nucleus mass. @default 1 */
  topP?: number;
  /** Generate at most this many rows at once. @default 64 */
  batchSize?: number;
  /** Padded context tokens (rows × longest) per generation at most: bounds the wasm heap. @default 4096 */
  maxTokens?: number;
}

/**
 * Wraps a policy model for the agent loop; the recorded log-probs are the
 * PPO old log-probs (no extra scoring pass).
 *
 * Source: verl rollout with `calculate_log_probs` (old log-probs from the sampler).
 *
 * @param model The policy.
 * @param options Padding id, temperature, top-p, batch size.
 * @returns The agent policy.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { modelPreset } from "../model/config.ts";
 * import { createModel } from "../model/params.ts";
 * import { modelPolicy } from "./model_policy.ts";
 *
 * const m = createModel(modelPreset("tiny", 20));
 * const [out] = await modelPolicy(m, { padId: 0 }).nextTurns(
 *   [{ context: [1, 2, 3], episode: {} as never }],
 *   { maxNewTokens: 3, stopIds: [], seed: 1 },
 * );
 * assert.equal(out!.tokens.length, 3);
 * m.dispose();
 * ```
 */
export function modelPolicy(model: Model, options: ModelPolicyOptions): AgentPolicy {
  const { padId, temperature = 1, topP = 1, batchSize = 64, maxTokens = 4096 } = options;
  return {
    async nextTurns(requests: readonly TurnRequest[], { maxNewTokens, stopIds, seed }): Promise<TurnOutput[]> {
      const out: TurnOutput[] = [];
      let start = 0;
      for (const chunk of chunksByTokens(requests, (q) => q.context.length + maxNewTokens, batchSize, maxTokens)) {
        const r = await generate(model, chunk.map((q) => q.context), {
          maxNewTokens,
          stopIds,
          seed: seed + start,
          temperature,
          topP,
          padId,
        });
        chunk.forEach((_, i) => out.push({ tokens: r.tokens[i]!, logProbs: r.logProbs[i]! }));
        start += chunk.length;
      }
      return out;
    },
  };
}
