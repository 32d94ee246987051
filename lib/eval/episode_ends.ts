/**
 * How an episode ends: a format-valid answer, or which break of the format
 * stopped it. A small policy that fails on long questions mostly fails one
 * way, a `<mem>` that repeats itself until the turn's token limit, so the
 * break is told apart from a wrong answer and from the turn limit.
 *
 * @module
 */
import type { Episode } from "../env/rollout.ts";

/** The ways an episode ends, in the order eval.md reports them. */
export const EPISODE_ENDS = ["answer", "memory not closed", "other format break", "turn limit"] as const;

/** One of {@linkcode EPISODE_ENDS}. */
export type EpisodeEnd = typeof EPISODE_ENDS[number];

/**
 * How one episode ended, first match wins:
 *
 * ```text
 * answer               the whole trajectory passed validateFormat (the answer may be wrong)
 * memory not closed    the last turn's <mem> has no </mem> (it ran to maxTurnTokens, or stopped inside the memory)
 * turn limit           every turn was well formed, and the last search came at maxTurns
 * other format break   anything else (a turn without its closing tag, an answer before any search, …)
 * ```
 *
 * Source: this package (the failure reasons of `runEpisodes`, `lib/env/rollout.ts`).
 *
 * @param episode A finished episode.
 * @returns How it ended.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { episodeEnd } from "./episode_ends.ts";
 *
 * const turn = (memSpan?: [number, number]) => ({ sampled: [5, 5, 5], ...(memSpan ? { memSpan } : {}) });
 * assert.equal(episodeEnd({ formatValid: true, turns: [turn([0, 2])] }), "answer");
 * assert.equal(episodeEnd({ formatValid: false, turns: [turn([0, 2]), turn()] }), "memory not closed");
 * assert.equal(episodeEnd({ formatValid: false, error: "turn 8: reached maxTurns 8 without an answer", turns: [turn([0, 2])] }), "turn limit");
 * assert.equal(episodeEnd({ formatValid: false, error: "turn 1: answered without any search", turns: [turn([0, 2])] }), "other format break");
 * ```
 */
export function episodeEnd(
  episode: Pick<Episode, "formatValid" | "error"> & {
    turns: readonly { sampled: readonly number[]; memSpan?: unknown }[];
  },
): EpisodeEnd {
  if (episode.formatValid) return "answer";
  const last = episode.turns.at(-1);
  if (last !== undefined && last.sampled.length > 0 && last.memSpan === undefined) return "memory not closed";
  if (episode.error?.includes("reached maxTurns")) return "turn limit";
  return "other format break";
}

/**
 * The share of episodes that end each way ({@linkcode episodeEnd}); the shares sum to 1, and `answer` is the
 * format-valid rate.
 *
 * Source: this package.
 *
 * @param episodes Finished episodes (at least one).
 * @returns Each end's share, every key of {@linkcode EPISODE_ENDS} present.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { episodeEnds } from "./episode_ends.ts";
 *
 * const closed = { sampled: [1], memSpan: [0, 1] as [number, number] };
 * const open = { sampled: [1] };
 * const shares = episodeEnds([
 *   { formatValid: true, turns: [closed] },
 *   { formatValid: false, turns: [closed, open] },
 *   { formatValid: false, turns: [open] },
 *   { formatValid: false, error: "reached maxTurns 2 without an answer", turns: [closed, closed] },
 * ]);
 * assert.deepEqual(shares, { "answer": 0.25, "memory not closed": 0.5, "other format break": 0, "turn limit": 0.25 });
 * ```
 */
export function episodeEnds(episodes: readonly Parameters<typeof episodeEnd>[0][]): Record<EpisodeEnd, number> {
  if (episodes.length === 0) throw new RangeError("Cannot share out how episodes end: no episodes");
  const counts = Object.fromEntries(EPISODE_ENDS.map((k) => [k, 0])) as Record<EpisodeEnd, number>;
  for (const e of episodes) counts[episodeEnd(e)] += 1;
  for (const k of EPISODE_ENDS) counts[k] /= episodes.length;
  return counts;
}
