/**
 * The research check of the MemPO paper, read off an evaluation table: at
 * many objectives MemPO keeps its F1 above GRPO's (the memory advantage
 * helps) and above the full-context agent's, with about a third of the
 * full-context agent's total tokens and a fifth of its peak context.
 *
 * @module
 */
import type { EvalRow } from "./evaluate.ts";

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

/** Options of {@linkcode researchCheck}. */
export interface ResearchCheckOptions {
  /** Check test sets with at least this many objectives. @default 4 */
  minObjectives?: number;
  /** MemPO total tokens ≤ this × the full-context agent's. @default 1/3 */
  totalRatio?: number;
  /** MemPO peak context ≤ this × the full-context agent's. @default 1/5 */
  peakRatio?: number;
}

const fmt = (x: number) => x.toFixed(2);

/**
 * Checks the paper's claims on each test set with `minObjectives` or more:
 *
 * ```text
 * F1(MemPO) > F1(GRPO, memory) > F1(SFT, full)          ("removing the memory advantage lowers F1";
 *                                                         "the full-context agent collapses")
 * tokens(MemPO) ≤ 1/3 · tokens(SFT, full)               (total tokens per episode; with the
 *                                                         teacher's rows, its ratio is shown too)
 * peak(MemPO)   ≤ 1/5 · peak(SFT, full)                 (peak context per episode)
 * ```
 *
 * An agent missing from the table leaves its claims out.
 *
 * Source: the MemPO paper's headline figure (F1 and tokens vs objectives)
 * and its ablation without the memory advantage (shared/seeds); the
 * thresholds are issue 5's.
 *
 * @param rows Evaluation rows (agents `MemPO`, `GRPO` under `memory`, `SFT` under `full`).
 * @param options Objective threshold and token ratios.
 * @returns One entry per claim and test set.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { researchCheck } from "./research_check.ts";
 *
 * const row = (agent: string, contextPolicy: "full" | "memory", f1: number, totalTokens: number, peakContext: number) =>
 *   ({ agent, contextPolicy, objectives: 4, em: f1, f1, formatValid: 1, reward: 0, totalTokens, peakContext, episodes: 8 });
 * const claims = researchCheck([row("SFT", "full", 0.2, 900, 400), row("GRPO", "memory", 0.3, 400, 100), row("MemPO", "memory", 0.4, 280, 90)]);
 * assert.deepEqual(claims.map((c) => c.holds), [true, true, true, false]); // 280/900 ≤ 1/3; 90/400 > 1/5
 * ```
 */
export function researchCheck(rows: readonly EvalRow[], options: ResearchCheckOptions = {}): ResearchClaim[] {
  const { minObjectives = 4, totalRatio = 1 / 3, peakRatio = 1 / 5 } = options;
  const find = (agent: string, policy: string, k: number) =>
    rows.find((r) => r.agent === agent && r.contextPolicy === policy && r.objectives === k);
  const ks = [...new Set(rows.map((r) => r.objectives))].filter((k) => k >= minObjectives).sort((a, b) => a - b);
  const claims: ResearchClaim[] = [];
  for (const k of ks) {
    const mempo = find("MemPO", "memory", k);
    const grpo = find("GRPO", "memory", k);
    const full = find("SFT", "full", k);
    if (mempo && grpo) {
      claims.push({
        objectives: k,
        claim: "MemPO F1 > GRPO F1 (the memory advantage helps)",
        holds: mempo.f1 > grpo.f1,
        detail: `${fmt(mempo.f1)} vs ${fmt(grpo.f1)}`,
      });
    }
    if (grpo && full) {
      claims.push({
        objectives: k,
        claim: "GRPO (memory) F1 > full-context SFT F1",
        holds: grpo.f1 > full.f1,
        detail: `${fmt(grpo.f1)} vs ${fmt(full.f1)}`,
      });
    }
    if (mempo && full) {
      // the teacher's own ratio (memory vs full context) is what a perfect policy reaches here
      const teacherMemory = find("Teacher", "memory", k);
      const teacherFull = find("Teacher", "full", k);
      const ceiling = (f: (r: EvalRow) => number) =>
        teacherMemory && teacherFull ? `; teacher ${fmt(f(teacherMemory) / f(teacherFull))}×` : "";
      const total = mempo.totalTokens / full.totalTokens;
      const peak = mempo.peakContext / full.peakContext;
      claims.push({
        objectives: k,
        claim: `MemPO total tokens ≤ ${fmt(totalRatio)} × full-context`,
        holds: total <= totalRatio,
        detail: `${Math.round(mempo.totalTokens)} vs ${Math.round(full.totalTokens)} (${fmt(total)}×${
          ceiling((r) => r.totalTokens)
        })`,
      });
      claims.push({
        objectives: k,
        claim: `MemPO peak context ≤ ${fmt(peakRatio)} × full-context`,
        holds: peak <= peakRatio,
        detail: `${Math.round(mempo.peakContext)} vs ${Math.round(full.peakContext)} (${fmt(peak)}×${
          ceiling((r) => r.peakContext)
        })`,
      });
    }
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
    "| objectives | claim | holds | numbers |",
    "| --- | --- | --- | --- |",
    ...claims.map((c) => `| ${c.objectives} | ${c.claim} | ${c.holds ? "yes" : "no"} | ${c.detail} |`),
    "",
    `${held} of ${claims.length} claims hold.`,
  ].join("\n");
}
