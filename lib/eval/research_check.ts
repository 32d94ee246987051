/**
 * The research check of the MemPO paper in this miniature, read off an
 * evaluation table and, for the claims that need more than one RL seed, off
 * `deno task compare`'s paired comparison: at the largest test set the
 * full-context SFT agent collapses (EM at most half its EM at 2 objectives)
 * while the memory SFT agent holds (EM ≥ 0.25 and ≥ twice the full-context
 * agent's); MemPO spends at most ½ of the full-context agent's total tokens
 * and ⅓ of its peak context; over 4, 6 and 8 objectives each RL agent beats
 * SFT by more than the RL-seed spread; and MemPO beats GRPO where the paired
 * 95 % interval lies above 0.
 *
 * @module
 */
import { AGENT_NAMES, type EvalRow, SFT_AGENT } from "./evaluate.ts";
import { markdownTable } from "../viz/table.ts";
import { mean } from "./_mean.ts";

/** One claim checked at one objective count. */
export interface ResearchClaim {
  /** Objectives of the test set. */
  objectives: number;
  /** What is claimed, in words. */
  claim: string;
  /** Whether the numbers bear it out. */
  holds: boolean;
  /** The numbers compared. */
  detail: string;
}

/** The paired comparison of `deno task compare` (the part the research check reads). */
export interface PairedComparison {
  /** RL seeds compared. */
  seeds: number[];
  /** EM and F1 per objective count, agent and seed. */
  rows: { objectives: number; agent: string; seed: number; em: number; f1: number }[];
  /** MemPO − GRPO EM per objective count, with the paired 95 % interval. */
  paired: { objectives: number; meanDiff: number; ciLow: number; ciHigh: number }[];
}

/** Options of {@linkcode researchCheck}. */
export interface ResearchCheckOptions {
  /** The paired multi-seed comparison (`compare.json`), for the claims that need more than one RL seed. */
  compare?: PairedComparison;
  /** Objective counts the RL and MemPO-vs-GRPO claims average over. @default [4, 6, 8] */
  longObjectives?: number[];
}

const fmt = (x: number) => x.toFixed(2);

/**
 * The MemPO paper's claims in this miniature, read off the evaluation table
 * (and, where more than one RL seed is needed, off `compare.json`):
 *
 * 1. the collapse: the full-context SFT agent's EM at the largest test set
 *    (8 objectives) is at most half its EM at 2;
 * 2. the memory agent holds: there, the memory-context SFT agent's EM is at
 *    least 0.25 and at least twice the full-context agent's;
 * 3. tokens: there, MemPO's total tokens are at most ½ and its peak context
 *    at most ⅓ of the full-context agent's;
 * 4. RL learns: averaged over 4, 6 and 8 objectives, each RL agent's EM is
 *    above the SFT policy's (memory context) by more than the spread of that
 *    average between RL seeds (needs `compare`; without it the one seed's gain
 *    is shown and the claim is left undecided: it does not hold);
 * 5. MemPO > GRPO: at each of 4, 6 and 8 objectives, the paired 95 %
 *    interval of MemPO − GRPO EM lies above 0 (needs `compare`).
 *
 * Source: MemPO (arXiv:2603.00680) Figure 1 and Table 2 (a memory agent holds
 * where a full-context one collapses; MemPO over GRPO); MEM1 (arXiv:2506.15841)
 * §5 (constant memory, tokens).
 *
 * @param rows The evaluation table (`eval.json` rows).
 * @param options The paired comparison, the objective counts of claims 4 and 5.
 * @returns The claims, in the order above (claims whose agents or sets are missing are left out).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { EvalRow } from "./evaluate.ts";
 * import { researchCheck } from "./research_check.ts";
 *
 * const r = (agent: string, contextPolicy: "full" | "memory", objectives: number, em: number) =>
 *   ({ agent, contextPolicy, objectives, em, f1: em, totalTokens: 100, peakContext: 50 }) as EvalRow;
 * const claims = researchCheck([r("SFT", "full", 2, 0.6), r("SFT", "full", 8, 0.1), r("SFT", "memory", 8, 0.3)]);
 * assert.deepEqual(claims.map((c) => c.holds), [true, true]);
 * ```
 */
export function researchCheck(rows: readonly EvalRow[], options: ResearchCheckOptions = {}): ResearchClaim[] {
  const { compare, longObjectives = [4, 6, 8] } = options;
  const find = (agent: string, policy: string, k: number) =>
    rows.find((r) => r.agent === agent && r.contextPolicy === policy && r.objectives === k);
  const ks = [...new Set(rows.map((r) => r.objectives))].sort((a, b) => a - b);
  const largest = ks.at(-1);
  const claims: ResearchClaim[] = [];
  if (largest === undefined) return claims;
  const full2 = find(SFT_AGENT, "full", 2);
  const fullL = find(SFT_AGENT, "full", largest);
  const memL = find(SFT_AGENT, "memory", largest);
  if (full2 && fullL && largest > 2) {
    claims.push({
      objectives: largest,
      claim: `the full-context SFT agent collapses: EM at ${largest} ≤ ½ × EM at 2`,
      holds: fullL.em <= full2.em / 2,
      detail: `${fmt(fullL.em)} vs ${fmt(full2.em)} / 2`,
    });
  }
  if (memL && fullL) {
    claims.push({
      objectives: largest,
      claim: `the memory SFT agent holds: EM ≥ 0.25 and ≥ 2 × the full-context agent's`,
      holds: memL.em >= 0.25 && memL.em >= 2 * fullL.em,
      detail: `${fmt(memL.em)} vs ${fmt(fullL.em)}`,
    });
  }
  const mempoL = find(AGENT_NAMES.mempo, "memory", largest);
  if (mempoL && fullL) {
    const total = mempoL.totalTokens / fullL.totalTokens;
    const peak = mempoL.peakContext / fullL.peakContext;
    // judged per turn (a collapsed agent that stops early spends few tokens in all); the total is reported
    const perTurn = (r: EvalRow) =>
      r.questionTokens && r.questionTurns ? mean(r.questionTokens) / Math.max(1e-9, mean(r.questionTurns)) : Number.NaN;
    const turn = perTurn(mempoL) / perTurn(fullL);
    claims.push({
      objectives: largest,
      claim: "MemPO's tokens per turn ≤ ½ × the full-context agent's",
      holds: turn <= 1 / 2,
      detail: `${Math.round(perTurn(mempoL))} vs ${Math.round(perTurn(fullL))} (${fmt(turn)}×); total tokens ` +
        `${Math.round(mempoL.totalTokens)} vs ${Math.round(fullL.totalTokens)} (${fmt(total)}×), reported, not judged`,
    });
    claims.push({
      objectives: largest,
      claim: "MemPO's peak context ≤ ⅓ × the full-context agent's",
      holds: peak <= 1 / 3,
      detail: `${Math.round(mempoL.peakContext)} vs ${Math.round(fullL.peakContext)} (${fmt(peak)}×)`,
    });
  }
  const long = longObjectives.filter((k) => ks.includes(k));
  const sftLong = long.map((k) => find(SFT_AGENT, "memory", k)?.em);
  if (long.length > 0 && sftLong.every((x) => x !== undefined)) {
    const sft = mean(sftLong as number[]);
    const label = long.join(", ");
    for (const agent of [AGENT_NAMES.mempo, AGENT_NAMES.grpo, AGENT_NAMES.ppo]) {
      const bySeed = compare
        ? compare.seeds.map((seed) =>
          long.map((k) => compare.rows.find((r) => r.agent === agent && r.seed === seed && r.objectives === k)?.em)
        ).filter((ems) => ems.every((x) => x !== undefined)).map((ems) => mean(ems as number[]))
        : [];
      const here = long.map((k) => find(agent, "memory", k)?.em);
      if (bySeed.length === 0 && !here.every((x) => x !== undefined)) continue;
      if (bySeed.length >= 2) {
        const gain = mean(bySeed) - sft;
        const spread = Math.max(...bySeed) - Math.min(...bySeed);
        claims.push({
          objectives: long.at(-1)!,
          claim: `RL learns: ${agent}'s EM over ${label} objectives beats SFT's by more than the RL-seed spread`,
          holds: gain > spread,
          detail: `${fmt(mean(bySeed))} vs SFT ${fmt(sft)}: gain ${fmt(gain)}, spread ${
            fmt(spread)
          } over ${bySeed.length} seeds`,
        });
      } else {
        const em = mean(here as number[]);
        claims.push({
          objectives: long.at(-1)!,
          claim: `RL learns: ${agent}'s EM over ${label} objectives beats SFT's by more than the RL-seed spread`,
          holds: false,
          detail: `${fmt(em)} vs SFT ${fmt(sft)} at one seed: undecided without the seed spread (deno task compare)`,
        });
      }
    }
  }
  for (const k of long) {
    const p = compare?.paired.find((x) => x.objectives === k);
    if (p === undefined) continue;
    claims.push({
      objectives: k,
      claim: "MemPO > GRPO: the paired 95 % interval of the EM difference lies above 0",
      holds: p.ciLow > 0,
      detail: `${p.meanDiff >= 0 ? "+" : ""}${fmt(p.meanDiff)} [${fmt(p.ciLow)}, ${fmt(p.ciHigh)}] over ${
        compare!.seeds.length
      } seeds`,
    });
  }
  return claims;
}

/**
 * The claims as a Markdown table (objectives, claim, holds, numbers).
 *
 * Source: see {@linkcode researchCheck}.
 *
 * @param claims From {@linkcode researchCheck}.
 * @returns Markdown (a note when there is nothing to check).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { researchCheckMarkdown } from "./research_check.ts";
 *
 * assert.match(researchCheckMarkdown([{ objectives: 4, claim: "c", holds: false, detail: "1 vs 2" }]), /\| 4 \| c \| no \| 1 vs 2 \|/);
 * assert.match(researchCheckMarkdown([]), /nothing to check/);
 * ```
 */
export function researchCheckMarkdown(claims: readonly ResearchClaim[]): string {
  if (claims.length === 0) return "(nothing to check: the table lacks the agents or objective counts)";
  const held = claims.filter((c) => c.holds).length;
  return [
    markdownTable(
      ["objectives", "claim", "holds", "numbers"],
      claims.map((c) => [String(c.objectives), c.claim, c.holds ? "yes" : "no", c.detail]),
    ).markdown,
    "",
    `${held} of ${claims.length} claims hold.`,
  ].join("\n");
}
