/**
 * Evaluation: each agent (a model and a context policy) on each test set,
 * greedy decoding; mean EM, mean F1, format-valid rate, mean total tokens and
 * mean peak context per episode.
 *
 * @module
 */
import type { LoadedData } from "../data/build.ts";
import type { Model } from "../model/params.ts";
import type { ContextPolicy } from "../env/context.ts";
import { runEpisodes } from "../env/rollout.ts";
import { modelPolicy } from "../env/model_policy.ts";
import { tasksFromRecords } from "./demos.ts";
import type { EvalConfig } from "./config.ts";

/** An agent to evaluate. */
export interface AgentSpec {
  /** Row label (e.g. `MemPO`). */
  name: string;
  /** Its weights. */
  model: Model;
  /** Its context policy. */
  contextPolicy: ContextPolicy;
}

/** One cell of the evaluation table. */
export interface EvalRow {
  /** Agent name. */
  agent: string;
  /** Context policy. */
  contextPolicy: ContextPolicy;
  /** Objectives per question of the test set. */
  objectives: number;
  /** Mean per-objective exact match. */
  em: number;
  /** Mean per-objective F1. */
  f1: number;
  /** Share of episodes with a valid format. */
  formatValid: number;
  /** Share of episodes with every objective right. */
  reward: number;
  /** Mean Σ (context + generated) tokens per episode. */
  totalTokens: number;
  /** Mean peak context per episode. */
  peakContext: number;
  /** Episodes run. */
  episodes: number;
  /** A sample transcript (the first episode's turns). */
  sample?: string[];
}

/**
 * Evaluates agents on the test sets.
 *
 * Source: MemPO / MEM1 evaluation protocol (EM, F1, tokens and peak memory per objective count).
 *
 * @param agents The agents.
 * @param data Loaded data (test sets).
 * @param config Questions per set, turn limits.
 * @param onRow Called after each cell.
 * @returns One row per agent and test set.
 *
 * @example
 * ```ts
 * import { evaluateAgents } from "./evaluate.ts";
 *
 * console.assert(typeof evaluateAgents === "function");
 * ```
 */
export async function evaluateAgents(
  agents: readonly AgentSpec[],
  data: LoadedData,
  config: EvalConfig,
  onRow?: (row: EvalRow) => void | Promise<void>,
): Promise<EvalRow[]> {
  const rows: EvalRow[] = [];
  for (const agent of agents) {
    const policy = modelPolicy(agent.model, { padId: data.tokenizer.padId, temperature: 0, batchSize: 32 });
    for (const [objectives, records] of [...data.test.entries()].sort((a, b) => a[0] - b[0])) {
      const eps = await runEpisodes(policy, tasksFromRecords(records.slice(0, config.questions)), data, {
        contextPolicy: agent.contextPolicy,
        maxTurns: config.maxTurns,
        maxTurnTokens: config.maxTurnTokens,
        maxPositions: agent.model.config.maxPositions,
        seed: 0,
      });
      const n = Math.max(1, eps.length);
      const mean = (f: (e: typeof eps[0]) => number) => eps.reduce((a, e) => a + f(e), 0) / n;
      const avg = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
      const row: EvalRow = {
        agent: agent.name,
        contextPolicy: agent.contextPolicy,
        objectives,
        em: mean((e) => avg(e.score.em)),
        f1: mean((e) => avg(e.score.f1)),
        formatValid: mean((e) => (e.formatValid ? 1 : 0)),
        reward: mean((e) => e.reward),
        totalTokens: mean((e) => e.totalTokens),
        peakContext: mean((e) => e.peakContext),
        episodes: eps.length,
        sample: eps[0]?.turns.map((t) => t.text),
      };
      rows.push(row);
      await onRow?.(row);
    }
  }
  return rows;
}

/**
 * The evaluation table in Markdown: rows = agents, columns = objective
 * counts, each cell `EM / F1 / total tokens / peak context`.
 *
 * Source: MemPO Table 1 layout (metrics per number of objectives).
 *
 * @param rows Evaluation rows.
 * @returns Markdown text.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { evalMarkdown } from "./evaluate.ts";
 *
 * const md = evalMarkdown([{ agent: "A", contextPolicy: "memory", objectives: 2, em: 0.5, f1: 0.6, formatValid: 1, reward: 0.5, totalTokens: 300, peakContext: 120, episodes: 4 }]);
 * assert.match(md, /\| A \(memory\) \| 0.50 \/ 0.60 \/ 300 \/ 120 \|/);
 * ```
 */
export function evalMarkdown(rows: readonly EvalRow[]): string {
  const ks = [...new Set(rows.map((r) => r.objectives))].sort((a, b) => a - b);
  const agents = [...new Set(rows.map((r) => `${r.agent} (${r.contextPolicy})`))];
  const lines = [
    `| agent | ${ks.map((k) => `${k} obj: EM / F1 / total tok / peak`).join(" | ")} |`,
    `| --- | ${ks.map(() => "---").join(" | ")} |`,
  ];
  for (const a of agents) {
    const cells = ks.map((k) => {
      const r = rows.find((x) => `${x.agent} (${x.contextPolicy})` === a && x.objectives === k);
      return r
        ? `${r.em.toFixed(2)} / ${r.f1.toFixed(2)} / ${Math.round(r.totalTokens)} / ${Math.round(r.peakContext)}`
        : "–";
    });
    lines.push(`| ${a} | ${cells.join(" | ")} |`);
  }
  return lines.join("\n");
}
