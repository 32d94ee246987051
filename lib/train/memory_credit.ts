/**
 * MemPO's memory credit for a batch of episodes: score every turn's memory
 * against its full history (2N sequences in one batched scoring call with
 * the rollout weights, no gradient), turn P_mem − P_full into memory
 * rewards, and normalise them per question.
 *
 * @module
 */
import type { Tokenizer } from "../text/tokenizer.ts";
import type { Model } from "../model/params.ts";
import { scoreContinuations, type ScoreOptions } from "../model/score.ts";
import { type Episode, scriptedTurn } from "../env/rollout.ts";
import { memoryRewardPairs } from "../env/memory_inputs.ts";
import { memoryReward } from "../advantage/memory_reward.ts";
import { infomemAdvantages, type MemoryAdvantageOptions, memoryAdvantages } from "../advantage/memory_advantage.ts";

/** Memory rewards and advantages per episode and turn (`null`: no memory credit). */
export interface MemoryCredit {
  /** R^M per `[episode][turn]`. */
  rewards: (number | null)[][];
  /** A^M per `[episode][turn]`. */
  advantages: (number | null)[][];
  /** P_mem per `[episode][turn]` (the episode log shows it beside R^M). */
  pMem: (number | null)[][];
  /** P_full per `[episode][turn]`. */
  pFull: (number | null)[][];
  /** Summary: mean/std of R^M, mean P_mem and P_full, number of scored turns. */
  stats: { rewardMean: number; rewardStd: number; pMem: number; pFull: number; turns: number };
}

/** Options of {@linkcode computeMemoryCredit}. */
export interface MemoryCreditOptions extends MemoryAdvantageOptions {
  /** Confidence threshold of the answer mask (undefined: off). */
  threshold?: number;
  /** P times the share of answer tokens kept (`memoryReward`'s `coverage`, not MemPO's). @default false */
  coverage?: boolean;
  /** Sequences per scoring forward. @default 32 */
  batchSize?: number;
  /** Where the scoring batches run (`scoreContinuations`' `scorer`: RL's workers). @default this thread */
  scorer?: ScoreOptions["scorer"];
  /**
   * `"mempo"`: A^M from every trajectory's memories (MemPO, `memoryAdvantages`); `"infomem"`: only from the
   * trajectories whose outcome reward is 1, 0 on the others (`infomemAdvantages`). @default "mempo"
   */
  variant?: "mempo" | "infomem";
}

/**
 * Memory rewards and pooled memory advantages for the episodes of one RL step.
 *
 * ```text
 * for each turn t ≥ 2 with ⟨mem⟩:  R^M = P_mem(t) − P_full(t)      (one batched scoring of 2N pairs; none before
 *                                                                  the task's learnFrom, a teacher's turns)
 * A^M = GRPO-normalise(R^M pooled over all turns of all trajectories of the same question)   (pool "turn": same turn index)
 * variant "infomem": only trajectories with outcome reward 1 enter the pools; the others' A^M = 0
 * ```
 *
 * Source: MemPO (arXiv:2603.00680) §memory-level advantage and its released code; InfoMem (arXiv:2606.03329) for
 * `variant`.
 * Reference: MemPO `_postprocess` + `compute_grpo_memory_advantage`.
 *
 * @param model The policy (rollout weights).
 * @param episodes Finished episodes.
 * @param tokenizer The tokenizer.
 * @param options Normaliser options, pool, threshold, batch size, variant, where the scoring runs.
 * @returns Per-turn rewards, advantages and summary statistics.
 *
 * @example Episodes without a second turn get no memory credit
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildTokenizer } from "../text/tokenizer.ts";
 * import { modelPreset } from "../model/config.ts";
 * import { createModel } from "../model/params.ts";
 * import { computeMemoryCredit } from "./memory_credit.ts";
 *
 * const tok = buildTokenizer(["q a"]);
 * const m = createModel(modelPreset("tiny", tok.size));
 * const ep = { id: 0, task: { question: "q", targets: "a", groupId: 0 }, turns: [] } as never;
 * const credit = await computeMemoryCredit(m, [ep], tok);
 * assert.deepEqual(credit.advantages, [[]]);
 * assert.equal(credit.stats.turns, 0);
 * m.dispose();
 * ```
 */
export async function computeMemoryCredit(
  model: Model,
  episodes: readonly Episode[],
  tokenizer: Tokenizer,
  options: MemoryCreditOptions = {},
): Promise<MemoryCredit> {
  const { threshold, coverage = false, batchSize = 32, variant = "mempo", scorer, ...normaliser } = options;
  if (variant !== "mempo" && variant !== "infomem") {
    throw new RangeError(
      `Cannot compute computeMemoryCredit: variant must be "mempo" or "infomem", current value is ${
        JSON.stringify(variant)
      }`,
    );
  }
  // a scripted teacher's turns (before the task's learnFrom, rl.joinShare) are no action of the policy: not credited
  // each pair keyed by its episode's place in the list, not its id: ids restart at 0 in each rollout call
  const pairs = episodes.flatMap((e, i) =>
    memoryRewardPairs(e, tokenizer, model.config.maxPositions).filter((p) => !scriptedTurn(e.task, p.turn))
      .map((p) => ({ ...p, episode: i }))
  );
  const rewards: (number | null)[][] = episodes.map((e) => e.turns.map(() => null));
  const empty = { rewardMean: 0, rewardStd: 0, pMem: 0, pFull: 0, turns: 0 };
  const pMem = rewards.map((r) => r.slice());
  const pFull = rewards.map((r) => r.slice());
  if (pairs.length === 0) return { rewards, advantages: rewards.map((r) => r.slice()), pMem, pFull, stats: empty };
  // one scoring call: N memory contexts then N full contexts
  const scored = await scoreContinuations(model, [
    ...pairs.map((p) => ({ context: p.memContext, continuation: p.continuation })),
    ...pairs.map((p) => ({ context: p.fullContext, continuation: p.continuation })),
  ], { padId: tokenizer.padId, batchSize, scorer });
  const A = Math.max(...pairs.map((p) => p.continuation.length));
  const pad = (row: number[]) => [...row, ...new Array(A - row.length).fill(0)];
  const r = memoryReward({
    memAnswerLogProbs: scored.slice(0, pairs.length).map(pad),
    fullAnswerLogProbs: scored.slice(pairs.length).map(pad),
    answerMask: pairs.map((p) => pad(p.answerMask)),
  }, { ...(threshold === undefined ? {} : { threshold }), coverage });
  pairs.forEach((p, k) => {
    rewards[p.episode]![p.turn] = r.reward[k]!;
    pMem[p.episode]![p.turn] = r.pMem[k]!;
    pFull[p.episode]![p.turn] = r.pFull[k]!;
  });
  const groupIds = episodes.map((e) => e.task.groupId);
  const advantages = variant === "infomem"
    ? infomemAdvantages({ rewards, groupIds, outcomes: episodes.map((e) => e.reward) }, normaliser)
    : memoryAdvantages({ rewards, groupIds }, normaliser);
  const mean = r.reward.reduce((a, b) => a + b, 0) / r.reward.length;
  const std = Math.sqrt(r.reward.reduce((a, b) => a + (b - mean) ** 2, 0) / r.reward.length);
  const avg = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  return {
    rewards,
    advantages,
    pMem,
    pFull,
    stats: { rewardMean: mean, rewardStd: std, pMem: avg(r.pMem), pFull: avg(r.pFull), turns: pairs.length },
  };
}
