/**
 * The language model as an {@linkcode AgentPolicy}: one batched, KV-cached
 * generation per turn for every active episode.
 *
 * @module
 */
import { generate, type GenerateOptions, type GenerateResult } from "../model/generate.ts";
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
  /**
   * Runs each batch's `generate` elsewhere (a worker's copy of the model: `GradientWorkers.generate`), all the
   * batches of a turn at once; the batches and their seeds are the same, so the same turns to the bit when it
   * returns what `generate(model, prompts, options)` would. @default this thread, one batch after the other
   */
  generator?: (prompts: readonly (readonly number[])[], options: GenerateOptions) => Promise<GenerateResult>;
}

/**
 * Wraps a policy model for the agent loop; the recorded log-probs are the
 * PPO old log-probs (no extra scoring pass).
 *
 * Source: verl rollout with `calculate_log_probs` (old log-probs from the sampler).
 *
 * @param model The policy.
 * @param options Padding id, temperature, top-p, batch size, where the batches run.
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
  const { padId, temperature = 1, topP = 1, batchSize = 64, maxTokens = 4096, generator } = options;
  return {
    async nextTurns(requests: readonly TurnRequest[], { maxNewTokens, stopIds, seed }): Promise<TurnOutput[]> {
      // the batches of the turn and their seeds depend on the requests only (each batch's on its first row)
      const chunks = chunksByTokens(requests, (q) => q.context.length + maxNewTokens, batchSize, maxTokens);
      const starts = chunks.map((_, c) => chunks.slice(0, c).reduce((a, b) => a + b.length, 0));
      const run = (c: number, gen: NonNullable<ModelPolicyOptions["generator"]>) =>
        gen(chunks[c]!.map((q) => q.context), {
          maxNewTokens,
          stopIds,
          seed: seed + starts[c]!,
          temperature,
          topP,
          padId,
        });
      const results = generator !== undefined ? await Promise.all(chunks.map((_, c) => run(c, generator))) : [];
      if (generator === undefined) {
        for (let c = 0; c < chunks.length; c++) results.push(await run(c, (p, o) => generate(model, p, o)));
      }
      return results.flatMap((r) => r.tokens.map((tokens, i) => ({ tokens, logProbs: r.logProbs[i]! })));
    },
  };
}
