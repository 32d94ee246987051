/**
 * The evaluation figure: one metric against the number of objectives, one
 * curve per agent and context policy (MemPO Figure 1's layout).
 *
 * @module
 */
import type { SvgFigure } from "./display.ts";
import { linePlot, type Series } from "./line_plot.ts";
import { agentSlots, seriesStyle } from "./series_style.ts";

/** The fields of an evaluation row that place it (lib/eval/evaluate.ts `EvalRow` has them). */
export interface EvalFigureRow {
  /** Agent name. */
  agent: string;
  /** Context policy: `full` or `memory`. */
  contextPolicy: string;
  /** Objectives per question of the test set. */
  objectives: number;
}

/** The metrics of an evaluation row that {@linkcode evalFigure} draws. */
export type EvalMetric = "f1" | "em" | "reward" | "formatValid" | "totalTokens" | "peakContext";

/** Each metric's title, y-axis label (with its unit) and fixed y domain (shares and means of 0–1 scores). */
export const EVAL_METRICS: Readonly<Record<EvalMetric, { title: string; axis: string; domain?: [number, number] }>> = {
  f1: { title: "F1 vs objectives", axis: "F1 per objective (mean, 0–1)", domain: [0, 1] },
  em: { title: "Exact match vs objectives", axis: "exact match per objective (mean, 0–1)", domain: [0, 1] },
  reward: {
    title: "Fully correct vs objectives",
    axis: "episodes with every objective right (share, 0–1)",
    domain: [0, 1],
  },
  formatValid: {
    title: "Valid format vs objectives",
    axis: "episodes with a valid format (share, 0–1)",
    domain: [0, 1],
  },
  totalTokens: { title: "Tokens per episode", axis: "tokens per episode (context + generated, mean)" },
  peakContext: { title: "Peak context per episode", axis: "peak context (tokens, mean per episode)" },
};

/**
 * Line style per context policy: memory a thin solid line; full a wide,
 * translucent dashed band drawn underneath, so that where both policies of an
 * agent give the same value the thin line runs inside the band and both show.
 */
export const CONTEXT_LINES: Readonly<Record<string, { dash: string; width: number; opacity: number }>> = {
  full: { dash: "7 3", width: 5, opacity: 0.4 },
  memory: { dash: "", width: 1.75, opacity: 1 },
};

/** The x-axis label of evaluation figures. */
export const OBJECTIVES_AXIS = "objectives per question (count)";

/**
 * Draws `metric` against the objective count: one series per agent and context
 * policy (legend `Agent (policy)`), the agent giving colour and marker (the
 * same slot as in the training curves, {@linkcode agentSlots}), the policy the
 * line ({@linkcode CONTEXT_LINES}); x ticks are exactly the objective counts
 * of the rows. Zero-based y for token counts; 0–1 for scores.
 *
 * Source: MemPO (arXiv 2603.00680) Figure 1, performance and tokens vs number of objectives.
 *
 * @param rows Evaluation rows (any order).
 * @param metric What to draw.
 * @param options Title (default from {@linkcode EVAL_METRICS}), size (px).
 * @returns The figure.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { evalFigure } from "./eval_figure.ts";
 *
 * const rows = [1, 2, 4].map((objectives) => ({ agent: "MemPO", contextPolicy: "memory", objectives, f1: 1 / objectives }));
 * const svg = evalFigure(rows, "f1").svg;
 * assert.ok(svg.includes(">MemPO (memory)</text>"));
 * assert.deepEqual([...svg.matchAll(/aria-label="x-axis tick label">(.*?)<\/g>/g)][0]![1]!.match(/>\d+</g), [">1<", ">2<", ">4<"]);
 * ```
 */
export function evalFigure<K extends EvalMetric>(
  rows: readonly (EvalFigureRow & Readonly<Record<K, number>>)[],
  metric: K,
  options: { title?: string; width?: number; height?: number } = {},
): SvgFigure {
  const spec = EVAL_METRICS[metric];
  if (spec === undefined) {
    throw new Error(`evalFigure: metric must be one of ${Object.keys(EVAL_METRICS)}, got ${metric}`);
  }
  for (const r of rows) {
    if (!(r.contextPolicy in CONTEXT_LINES)) {
      throw new Error(`evalFigure: contextPolicy must be full or memory, got ${r.contextPolicy} (agent ${r.agent})`);
    }
    if (!Number.isInteger(r.objectives) || r.objectives < 1) {
      throw new Error(`evalFigure: objectives must be an integer ≥ 1, got ${r.objectives} (agent ${r.agent})`);
    }
  }
  const slots = agentSlots(rows.map((r) => r.agent));
  const policies = Object.keys(CONTEXT_LINES).sort(); // full, memory
  const keys = [...new Set(rows.map((r) => JSON.stringify([r.agent, r.contextPolicy])))]
    .map((k) => JSON.parse(k) as [string, string])
    .sort(([a, p], [b, q]) => slots.get(a)! - slots.get(b)! || policies.indexOf(p) - policies.indexOf(q));
  const series: Series[] = keys.map(([agent, policy]) => ({
    name: `${agent} (${policy})`,
    points: rows.filter((r) => r.agent === agent && r.contextPolicy === policy)
      .sort((a, b) => a.objectives - b.objectives)
      .map((r) => [r.objectives, r[metric]] as [number, number]),
    style: { ...seriesStyle(slots.get(agent)!), ...CONTEXT_LINES[policy]! },
  }));
  const ys = rows.map((r) => r[metric]).filter(Number.isFinite);
  return linePlot(series, {
    title: options.title ?? spec.title,
    xLabel: OBJECTIVES_AXIS,
    yLabel: spec.axis,
    xTicks: [...new Set(rows.map((r) => r.objectives))].sort((a, b) => a - b),
    yDomain: spec.domain ?? [0, Math.max(1, ...ys)],
    width: options.width,
    height: options.height,
  });
}
