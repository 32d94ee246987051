/**
 * What an episode's tokens paid for. Total tokens per episode count the work
 * an episode did as well as the price of each turn: an agent whose episodes
 * end early (a broken format, or an answer before every objective was
 * searched) spends few tokens however long its context grows. So, per agent
 * and test set: the turns an episode ran (of all episodes and of the
 * format-valid ones) and the tokens per turn; and at the largest test set,
 * MemPO's tokens against the full-context SFT agent's beside the teacher's
 * (the same work under both context policies, every turn done).
 *
 * @module
 */
import type { ContextPolicy } from "../env/context.ts";
import { AGENT_NAMES, type EvalRow, SFT_AGENT, TEACHER_AGENT } from "./evaluate.ts";
import { markdownTable } from "../viz/table.ts";
import { mean } from "./_mean.ts";

/** One agent on one test set: {@linkcode tokenCost}. */
export interface TokenCostRow {
  /** Agent name. */
  agent: string;
  /** Its context policy. */
  contextPolicy: ContextPolicy;
  /** Objectives of the test set. */
  objectives: number;
  /** Episodes. */
  episodes: number;
  /** Mean turns per episode. */
  turns: number;
  /** Mean turns of the format-valid episodes (`null`: none is). */
  validTurns: number | null;
  /** Share of format-valid episodes. */
  validShare: number;
  /** Σ total tokens ÷ Σ turns over the episodes (`null`: no turn). */
  tokensPerTurn: number | null;
  /** Mean total tokens per episode (the evaluation table's). */
  totalTokens: number;
  /** Mean peak context per episode (the evaluation table's). */
  peakContext: number;
}

/**
 * Per evaluation row that records each question's turns and tokens
 * (`questionTurns`, `questionTokens`, `questionValid`):
 *
 * ```text
 * turns         = mean_q turns_q
 * validTurns    = mean_{q : valid_q} turns_q
 * validShare    = |{q : valid_q}| / |q|
 * tokensPerTurn = Σ_q tokens_q / Σ_q turns_q
 * ```
 *
 * Source: MemPO (arXiv:2603.00680) §4 and MEM1 (arXiv:2506.15841) §5 (total and peak tokens per
 * episode); this package (the turns that the totals paid for).
 *
 * @param rows Evaluation rows (`eval.json`); rows without the per-question arrays are left out.
 * @returns One row per evaluation row kept, in the same order.
 * @throws {TypeError} When a row's three arrays differ in length (the row is named).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { tokenCost } from "./token_cost.ts";
 *
 * const row = { agent: "SFT", contextPolicy: "full", objectives: 8, episodes: 2, totalTokens: 450, peakContext: 200,
 *   questionTurns: [4, 2], questionTokens: [700, 200], questionValid: [true, false] } as never;
 * const [c] = tokenCost([row]);
 * assert.deepEqual([c!.turns, c!.validTurns, c!.tokensPerTurn], [3, 4, 150]);
 * ```
 */
export function tokenCost(rows: readonly EvalRow[]): TokenCostRow[] {
  const out: TokenCostRow[] = [];
  for (const r of rows) {
    const { questionTurns: turns, questionTokens: tokens, questionValid: valid } = r;
    if (turns === undefined || tokens === undefined || valid === undefined || turns.length === 0) continue;
    if (tokens.length !== turns.length || valid.length !== turns.length) {
      throw new TypeError(
        `Cannot compute tokenCost: ${r.agent} (${r.contextPolicy}) at ${r.objectives} objectives has ${turns.length} questionTurns, ${tokens.length} questionTokens and ${valid.length} questionValid`,
      );
    }
    const validTurns = turns.filter((_, i) => valid[i]);
    const allTurns = turns.reduce((a, b) => a + b, 0);
    out.push({
      agent: r.agent,
      contextPolicy: r.contextPolicy,
      objectives: r.objectives,
      episodes: turns.length,
      turns: mean(turns),
      validTurns: validTurns.length > 0 ? mean(validTurns) : null,
      validShare: validTurns.length / turns.length,
      tokensPerTurn: allTurns > 0 ? tokens.reduce((a, b) => a + b, 0) / allTurns : null,
      totalTokens: r.totalTokens,
      peakContext: r.peakContext,
    });
  }
  return out;
}

/**
 * eval.md's section on {@linkcode tokenCost}: a table (per agent, per test
 * set: `turns (turns of the format-valid episodes) / tokens per turn`), then,
 * at the largest test set, the turns of the full-context SFT agent's, MemPO's
 * and the teacher's episodes, MemPO's tokens per turn against the full-context
 * agent's, and the teacher's memory-to-full ratios of total tokens and peak
 * context (the research check's token claims at equal work: printed only
 * where both teacher rows ran the same turns, every episode format-valid).
 *
 * Source: this package (eval.md).
 *
 * @param rows From {@linkcode tokenCost}.
 * @returns Markdown text (empty when there are no rows).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { tokenCostMarkdown } from "./token_cost.ts";
 *
 * const row = (agent: string, contextPolicy: "full" | "memory", turns: number, tokensPerTurn: number, totalTokens: number, peakContext: number) =>
 *   ({ agent, contextPolicy, objectives: 8, episodes: 4, turns, validTurns: turns, validShare: 1, tokensPerTurn, totalTokens, peakContext });
 * const md = tokenCostMarkdown([
 *   row("Teacher", "full", 11, 400, 4400, 700), row("Teacher", "memory", 11, 112, 1232, 120),
 *   row("SFT", "full", 5, 220, 1100, 340), row("MemPO", "memory", 10, 110, 1100, 140),
 * ]);
 * assert.match(md, /\| SFT \(full\) \| 5\.0 \(5\.0\) \/ 220 \|/);
 * assert.match(md, /MemPO spends 0\.50× the full-context agent's tokens per turn/);
 * assert.match(md, /0\.28× the full context's total tokens and 0\.17× its peak context/);
 * ```
 */
export function tokenCostMarkdown(rows: readonly TokenCostRow[]): string {
  if (rows.length === 0) return "";
  const ks = [...new Set(rows.map((r) => r.objectives))].sort((a, b) => a - b);
  const agents: TokenCostRow[] = [];
  for (const r of rows) {
    if (!agents.some((a) => a.agent === r.agent && a.contextPolicy === r.contextPolicy)) agents.push(r);
  }
  const find = (agent: string, policy: ContextPolicy, k: number) =>
    rows.find((r) => r.agent === agent && r.contextPolicy === policy && r.objectives === k);
  const perTurn = (x: number | null) => (x === null ? "–" : String(Math.round(x)));
  const table = markdownTable(
    ["agent", ...ks.map((k) => `${k} obj`)],
    agents.map((a) => [
      `${a.agent} (${a.contextPolicy})`,
      ...ks.map((k) => {
        const c = find(a.agent, a.contextPolicy, k);
        if (c === undefined) return "–";
        const valid = c.validTurns === null ? "–" : c.validTurns.toFixed(1);
        return `${c.turns.toFixed(1)} (${valid}) / ${perTurn(c.tokensPerTurn)}`;
      }),
    ]),
  ).markdown;
  const k = ks.at(-1)!;
  const full = find(SFT_AGENT, "full", k);
  const mempo = find(AGENT_NAMES.mempo, "memory", k);
  const teacherFull = find(TEACHER_AGENT, "full", k);
  const teacherMemory = find(TEACHER_AGENT, "memory", k);
  const read: string[] = [];
  if (full && mempo) {
    const teacher = teacherFull ? `, where the teacher's take ${teacherFull.turns.toFixed(1)} turns` : "";
    read.push(
      `At ${k} objectives the full-context SFT agent's episodes end after ${full.turns.toFixed(1)} turns on average ` +
        `and MemPO's after ${mempo.turns.toFixed(1)}${teacher}.`,
    );
    if (full.tokensPerTurn !== null && mempo.tokensPerTurn !== null) {
      read.push(
        `MemPO spends ${
          (mempo.tokensPerTurn / full.tokensPerTurn).toFixed(2)
        }× the full-context agent's tokens per turn.`,
      );
    }
  }
  // the same work: the same turns under both context policies, every episode answered in format
  const sameWork = teacherFull !== undefined && teacherMemory !== undefined &&
    teacherFull.turns === teacherMemory.turns && teacherFull.validShare === 1 && teacherMemory.validShare === 1 &&
    teacherFull.totalTokens > 0 && teacherFull.peakContext > 0;
  if (sameWork) {
    read.push(
      `At the same work (the teacher, every turn done), the memory context spends ${
        (teacherMemory.totalTokens / teacherFull.totalTokens).toFixed(2)
      }× the full context's total tokens and ${
        (teacherMemory.peakContext / teacherFull.peakContext).toFixed(2)
      }× its peak context.`,
    );
  }
  return [
    "## What the tokens pay for",
    "",
    "An episode's total tokens count the work it did as well as the price of each turn: an episode that ends early",
    "(a broken format, or an answer before every objective was searched) spends few tokens however long its context",
    "grows. Cells: mean turns per episode (in brackets, the mean over its format-valid episodes only) / tokens per turn",
    "(Σ total tokens ÷ Σ turns).",
    "",
    table,
    ...(read.length > 0 ? ["", read.join(" ")] : []),
  ].join("\n");
}
