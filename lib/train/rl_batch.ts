/**
 * From episodes to training sequences: one sequence per turn (the context it
 * was sampled under, then its tokens), with the per-token advantage and the
 * sampler's old log-probs aligned to the sampled tokens.
 *
 * @module
 */
import { type Episode, scriptedTurn } from "../env/rollout.ts";
import { combineAdvantages, spanLengthScales } from "../advantage/memory_advantage.ts";
import { computeGae } from "../advantage/gae.ts";
import { maskedWhiten } from "../advantage/whiten.ts";
import { placeOutcomeReward } from "../advantage/outcome_reward.ts";
import type { LmSequence } from "./collate.ts";

/** A training sequence of one turn, with its episode and turn index. */
export interface TurnSequence extends LmSequence {
  /** Episode index in the batch. */
  episode: number;
  /** Turn index. */
  turn: number;
  /** Extras: `advantages` and `oldLogProbs` (PPO adds `returns`, `oldValues`). */
  extras: Record<string, number[]>;
}

/** Options of {@linkcode outcomeTurnSequences}: how A^M is applied to a `<mem>` span. */
export interface OutcomeTurnOptions {
  /** Weight of A^M. @default 1 */
  memCoef?: number;
  /** Whether A^M also covers `</mem>` (MemPO's span); `false`: the content only. @default true */
  closeTag?: boolean;
  /**
   * `"token"`: every token of the span gets A^M (MemPO); `"span"`: A^M · L̄ / L_s
   * ({@linkcode spanLengthScales} over the batch's spans), so every span weighs the same. @default "token"
   */
  spanWeight?: "token" | "span";
}

/**
 * Per-turn sequences with outcome (and memory) advantages: every sampled
 * token of episode i gets A^T_i; the tokens of turn t's `<mem>` span
 * (content and `</mem>`) also get `memCoef · A^M(i, t)` (times L̄ / L_s with
 * `spanWeight: "span"`). A turn before its task's `learnFrom` (a scripted
 * teacher's, `teacherFirst`) gives no sequence.
 *
 * ```text
 * tokens = context_t + sampled_t,  lossMask = 0… + 1…,  oldLogProbs = 0… + logπ_old(sampled_t)
 * advantages = combineAdvantages(A^T_i, spans of ⟨mem⟩_t with A^M(i, t))
 * ```
 *
 * Source: MemPO (arXiv:2603.00680) §memory-level advantage; its released code's `compute_advantage` (A^M added
 * on the ⟨mem⟩ tokens).
 *
 * @param episodes Finished episodes.
 * @param outcomeAdvantages A^T per episode.
 * @param memoryAdvantages A^M per episode and turn (null/undefined: none).
 * @param options Weight of A^M, whether `</mem>` is in the span, token or span weighting.
 * @returns Sequences for the update.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { outcomeTurnSequences } from "./rl_batch.ts";
 *
 * const ep = { id: 0, turns: [{ context: [1, 2], sampled: [3, 4, 5], logProbs: [-1, -2, -3], memSpan: [0, 2] }] } as never;
 * const [s] = outcomeTurnSequences([ep], [0.5], [[2]], { memCoef: 1 });
 * assert.deepEqual(s!.extras.advantages, [0, 0, 2.5, 2.5, 0.5]);
 * assert.deepEqual(s!.extras.oldLogProbs, [0, 0, -1, -2, -3]);
 * ```
 */
export function outcomeTurnSequences(
  episodes: readonly Episode[],
  outcomeAdvantages: readonly number[],
  memoryAdvantages: readonly (readonly (number | null)[])[] | undefined,
  options: OutcomeTurnOptions = {},
): TurnSequence[] {
  const { memCoef = 1, closeTag = true, spanWeight = "token" } = options;
  if (spanWeight !== "token" && spanWeight !== "span") {
    throw new RangeError(
      `Cannot build outcomeTurnSequences: spanWeight must be "token" or "span", current value is ${
        JSON.stringify(spanWeight)
      }`,
    );
  }
  // every turn's <mem> span that gets memory credit, in batch order
  const spans = episodes.flatMap((e, i) =>
    e.turns.map((t, k) => {
      const am = memoryAdvantages?.[i]?.[k];
      if (t.sampled.length === 0 || am === null || am === undefined || t.memSpan === undefined) return null;
      const C = t.context.length;
      return { start: C + t.memSpan[0], end: C + t.memSpan[1] - (closeTag ? 0 : 1), advantage: am };
    })
  );
  const credited = spans.filter((s) => s !== null);
  const scales = spanWeight === "span" ? spanLengthScales(credited.map((s) => s.end - s.start)) : undefined;
  credited.forEach((s, j) => (s.advantage *= scales?.[j] ?? 1));
  const out: TurnSequence[] = [];
  let n = 0;
  episodes.forEach((e, i) => {
    e.turns.forEach((t, k) => {
      const span = spans[n++];
      // an empty turn, or one a scripted teacher wrote (the task's learnFrom), is not learned
      if (t.sampled.length === 0 || (e.task !== undefined && scriptedTurn(e.task, k))) return;
      const lossMask = [...t.context.map(() => 0), ...t.sampled.map(() => 1)];
      const [advantages] = combineAdvantages(
        { outcomeAdvantages: [outcomeAdvantages[i]!], memorySpans: [span ? [span] : []], mask: [lossMask] },
        { memCoef },
      );
      out.push({
        episode: i,
        turn: k,
        tokens: [...t.context, ...t.sampled],
        lossMask,
        extras: { advantages: advantages!, oldLogProbs: [...t.context.map(() => 0), ...t.logProbs] },
      });
    });
  });
  return out;
}

/**
 * PPO with a critic over multi-turn episodes: the sampled tokens of all
 * turns of an episode form one trajectory (tool output is not part of it, as
 * if masked), the outcome reward sits on its last sampled token, GAE runs
 * over it, advantages are whitened over the batch, and everything is
 * scattered back onto the per-turn sequences.
 *
 * ```text
 * r = placeOutcomeReward(reward_i, trajectory mask);  (Â, R̂) = computeGae(r, V_old, mask; γ, λ)
 * Â ← maskedWhiten(Â) over every sampled token of the batch
 * ```
 *
 * Source: Schulman et al. 2017 (PPO) with GAE (arXiv:1506.02438 Eq. 16); MiniMind `train_ppo.py`.
 * Reference: verl `compute_gae_advantage_return` + `masked_whiten`.
 *
 * @param episodes Finished episodes.
 * @param values V_old per episode, turn and sampled token (critic values at rollout).
 * @param options γ, λ.
 * @returns Sequences with `advantages`, `oldLogProbs`, `returns`, `oldValues`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { gaeTurnSequences } from "./rl_batch.ts";
 *
 * const ep = { id: 0, reward: 1, turns: [{ context: [1], sampled: [2], logProbs: [-1] }, { context: [1, 2, 9], sampled: [3], logProbs: [-1] }] } as never;
 * const ep2 = { ...ep as object, reward: 0 } as never;
 * const seqs = gaeTurnSequences([ep, ep2], [[[0], [0]], [[0], [0]]], { gamma: 1, lambda: 1 });
 * assert.equal(seqs.length, 4);
 * assert.deepEqual(seqs[1]!.extras.returns, [0, 0, 0, 1]);
 * ```
 */
export function gaeTurnSequences(
  episodes: readonly Episode[],
  values: readonly (readonly (readonly number[])[])[],
  options: { gamma: number; lambda: number },
): TurnSequence[] {
  const rows = episodes.map((e, i) => e.turns.flatMap((t, k) => values[i]![k]!.slice(0, t.sampled.length)));
  const T = Math.max(1, ...rows.map((r) => r.length));
  const pad = (r: number[]) => [...r, ...new Array(T - r.length).fill(0)];
  const mask = rows.map((r) => pad(r.map(() => 1)));
  const rewards = placeOutcomeReward(episodes.map((e) => e.reward), mask);
  const gae = computeGae({ rewards, values: rows.map(pad), mask }, options);
  const total = mask.flat().reduce((a, b) => a + b, 0);
  const whitened = total >= 2 ? maskedWhiten(gae.advantages, mask) : gae.advantages;
  const out: TurnSequence[] = [];
  episodes.forEach((e, i) => {
    let offset = 0;
    e.turns.forEach((t, k) => {
      const n = t.sampled.length;
      if (n === 0) return;
      const zeros = t.context.map(() => 0);
      const pick = (m: number[][]) => [...zeros, ...m[i]!.slice(offset, offset + n)];
      out.push({
        episode: i,
        turn: k,
        tokens: [...t.context, ...t.sampled],
        lossMask: [...zeros, ...t.sampled.map(() => 1)],
        extras: {
          advantages: pick(whitened),
          returns: pick(gae.returns),
          oldValues: [...zeros, ...rows[i]!.slice(offset, offset + n)],
          oldLogProbs: [...zeros, ...t.logProbs],
        },
      });
      offset += n;
    });
  });
  return out;
}
