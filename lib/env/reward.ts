/**
 * Outcome reward: exact match and token F1 per objective, multi-objective
 * scoring (split on ";"), and the episode reward.
 *
 * @module
 */

/** Gold answers: one string, aliases of one objective, or aliases per objective. */
export type Targets = string | readonly string[] | readonly (readonly string[])[];

/**
 * Normalises targets to aliases per objective.
 *
 * Source: verl / Search-R1 `ground_truth.target` (a string or an alias list);
 * MEM1 multi-objective targets (a list per objective).
 *
 * @param targets Any accepted shape.
 * @returns `[objective][alias]`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { normalizeTargets } from "./reward.ts";
 *
 * assert.deepEqual(normalizeTargets("Paris"), [["Paris"]]);
 * assert.deepEqual(normalizeTargets(["Paris", "paris city"]), [["Paris", "paris city"]]);
 * assert.deepEqual(normalizeTargets([["a"], ["b", "c"]]), [["a"], ["b", "c"]]);
 * ```
 */
export function normalizeTargets(targets: Targets): string[][] {
  if (typeof targets === "string") return [[targets]];
  if (!Array.isArray(targets) || targets.length === 0) {
    throw new TypeError(
      `Invalid targets: expected a string, a list of aliases or a list of alias lists, got ${JSON.stringify(targets)}`,
    );
  }
  if (targets.every((t) => typeof t === "string")) return [[...(targets as string[])]];
  return (targets as (readonly string[])[]).map((aliases, i) => {
    if (!Array.isArray(aliases) || aliases.some((a) => typeof a !== "string")) {
      throw new TypeError(`Invalid targets: objective ${i} must be a list of strings, got ${JSON.stringify(aliases)}`);
    }
    return [...aliases];
  });
}

/**
 * SQuAD normalisation: lower case, punctuation removed, articles a/an/the
 * removed, whitespace collapsed.
 *
 * Source: Rajpurkar et al. 2016 (SQuAD) evaluation script `normalize_answer`.
 *
 * @param s Any text.
 * @returns The normalised text.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { normalizeAnswer } from "./reward.ts";
 *
 * assert.equal(normalizeAnswer("  The  Hurt-Locker! "), "hurtlocker");
 * ```
 */
export function normalizeAnswer(s: string): string {
  return s.toLowerCase().replace(/[\p{P}\p{S}]/gu, "").replace(/\b(a|an|the)\b/g, " ").replace(/\s+/g, " ").trim();
}

/**
 * Exact match against any alias after normalisation.
 *
 * Source: SQuAD EM; Search-R1 `em_check`.
 *
 * @param prediction The predicted answer.
 * @param aliases Accepted answers.
 * @returns 1 or 0.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { emCheck } from "./reward.ts";
 *
 * assert.equal(emCheck("the Kalmar", ["kalmar"]), 1);
 * ```
 */
export function emCheck(prediction: string, aliases: readonly string[]): number {
  const p = normalizeAnswer(prediction);
  return aliases.some((a) => normalizeAnswer(a) === p) ? 1 : 0;
}

/**
 * Token-level F1 between a prediction and the best alias (bag of normalised tokens).
 *
 * ```text
 * P = |common| / |pred|,  R = |common| / |gold|,  F1 = 2PR / (P + R)   (0 when nothing in common)
 * ```
 *
 * Source: SQuAD evaluation script `f1_score`.
 *
 * @param prediction The predicted answer.
 * @param aliases Accepted answers.
 * @returns F1 in [0, 1].
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { f1Score } from "./reward.ts";
 *
 * assert.equal(f1Score("kalmar city", ["kalmar"]), 2 / 3);
 * ```
 */
export function f1Score(prediction: string, aliases: readonly string[]): number {
  const pred = normalizeAnswer(prediction).split(" ").filter(Boolean);
  let best = 0;
  for (const a of aliases) {
    const gold = normalizeAnswer(a).split(" ").filter(Boolean);
    const counts = new Map<string, number>();
    for (const g of gold) counts.set(g, (counts.get(g) ?? 0) + 1);
    let common = 0;
    for (const p of pred) {
      const c = counts.get(p) ?? 0;
      if (c > 0) {
        common += 1;
        counts.set(p, c - 1);
      }
    }
    if (common === 0) continue;
    const precision = common / pred.length;
    const recall = common / gold.length;
    best = Math.max(best, (2 * precision * recall) / (precision + recall));
  }
  return best;
}

/** Per-objective and overall scores of an answer. */
export interface AnswerScore {
  /** EM per objective (all 0 when the count is wrong). */
  em: number[];
  /** F1 per objective (all 0 when the count is wrong). */
  f1: number[];
  /** Whether the answer has as many parts as there are objectives. */
  countMatches: boolean;
  /** Every objective matched exactly. */
  allCorrect: boolean;
}

/**
 * Scores a (possibly multi-objective) answer: split on ";", one part per
 * objective in order; the wrong number of parts scores 0 everywhere.
 *
 * Source: MEM1 (arXiv:2506.15841) multi-objective answers `a1; a2; …`.
 *
 * @param answer The content of `<answer>` (or null when missing).
 * @param targets Gold answers.
 * @returns Per-objective EM/F1 and summary flags.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { scoreAnswer } from "./reward.ts";
 *
 * assert.deepEqual(scoreAnswer("kalmar ; olvan", [["kalmar"], ["vestria"]]).em, [1, 0]);
 * assert.deepEqual(scoreAnswer("kalmar", [["kalmar"], ["vestria"]]).em, [0, 0]);
 * ```
 */
export function scoreAnswer(answer: string | null, targets: Targets): AnswerScore {
  const gold = normalizeTargets(targets);
  const zero = () => gold.map(() => 0);
  if (answer === null) return { em: zero(), f1: zero(), countMatches: false, allCorrect: false };
  const parts = answer.split(";").map((p) => p.trim());
  if (parts.length !== gold.length) return { em: zero(), f1: zero(), countMatches: false, allCorrect: false };
  const em = parts.map((p, i) => emCheck(p, gold[i]!));
  const f1 = parts.map((p, i) => f1Score(p, gold[i]!));
  return { em, f1, countMatches: true, allCorrect: em.every((e) => e === 1) };
}

/**
 * The episode's outcome reward: 1 only when the format is valid and every
 * objective matches exactly, else 0.
 *
 * Source: Search-R1 / MemPO rule-based outcome reward (EM with a format gate).
 *
 * @param formatValid Whether `validateFormat` accepted the trajectory.
 * @param score The answer's score.
 * @returns 1 or 0.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { outcomeReward, scoreAnswer } from "./reward.ts";
 *
 * assert.equal(outcomeReward(true, scoreAnswer("a ; b", [["a"], ["b"]])), 1);
 * assert.equal(outcomeReward(false, scoreAnswer("a ; b", [["a"], ["b"]])), 0);
 * ```
 */
export function outcomeReward(formatValid: boolean, score: AnswerScore): number {
  return formatValid && score.allCorrect ? 1 : 0;
}
