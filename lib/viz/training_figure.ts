/**
 * Training curves from a run's `metrics.jsonl` rows: chosen metrics per step,
 * one panel per metric, one line per training stage (algorithm).
 *
 * @module
 */
import type { SvgFigure } from "./display.ts";
import { linePanels } from "./line_plot.ts";
import { SFT_STAGES } from "../stages.ts";
import { agentSlots, seriesStyle } from "./series_style.ts";

/** A `metrics.jsonl` row (lib/train/metrics.ts `MetricsRow`): `stage`, `step` and the logged metrics. */
export type TrainingRow = Readonly<Record<string, number | string>>;

/**
 * Axis labels (with units) of the metrics lib/train/metrics.ts logs, and a
 * fixed y domain for shares and 0–1 scores; other keys are labelled by the key.
 */
export const TRAINING_METRICS: Readonly<Record<string, { axis: string; domain?: [number, number] }>> = {
  "rollout/reward_mean": { axis: "outcome reward (mean per episode, 0–1)", domain: [0, 1] },
  "rollout/em": { axis: "exact match per objective (mean, 0–1)", domain: [0, 1] },
  "rollout/f1": { axis: "F1 per objective (mean, 0–1)", domain: [0, 1] },
  "rollout/format_valid": { axis: "valid format (share of episodes, 0–1)", domain: [0, 1] },
  "rollout/total_tokens": { axis: "tokens per episode (mean)" },
  "kl/ref": { axis: "KL to reference (nats per token)" },
  "ppo/approx_kl": { axis: "approx. KL old → new (nats per token)" },
  "ppo/clip_fraction": { axis: "clipped tokens (share, 0–1)", domain: [0, 1] },
  "policy/entropy": { axis: "entropy (nats per token)" },
  "grpo/frac_zero_std": { axis: "groups with equal rewards (share, 0–1)", domain: [0, 1] },
  "loss/policy": { axis: "policy loss (per token)" },
  "loss/value": { axis: "value loss (per token)" },
  "sft/loss": { axis: "cross-entropy (nats per token)" },
};

/** The default panels: reward, reference KL, policy loss. */
export const TRAINING_PANELS: readonly string[] = ["rollout/reward_mean", "kl/ref", "loss/policy"];

/** Options of {@linkcode trainingFigure}. */
export interface TrainingFigureOptions {
  /** Stages to draw, one line each (legend in agent order, `AGENT_ORDER`); default: every stage of the rows but `sft` and `pretrain`. */
  stages?: readonly string[];
  /** Metric keys, one panel each (top to bottom). @default TRAINING_PANELS */
  metrics?: readonly string[];
  /** Legend name per stage (e.g. lib/eval/evaluate.ts `AGENT_NAMES`, so colours match the evaluation figure); default: the stage. */
  labels?: Readonly<Record<string, string>>;
  /** Title. @default "Training per step" */
  title?: string;
  /** x-axis label. @default "step (count)" */
  xLabel?: string;
  /** Width (px). @default 680 */
  width?: number;
  /** Height of each panel (px). @default 220 (240 for a single panel) */
  height?: number;
}

/**
 * Draws training metrics against the step: for each metric a panel (y label
 * with its unit from {@linkcode TRAINING_METRICS}), in it one line per stage
 * with a point per logged step of that stage (a step without the metric
 * breaks the line), the stage's colour and marker as its agent's in the
 * evaluation figure (via `labels`).
 *
 * Source: the step-wise curves of TensorBoard / W&B dashboards that verl and
 * TRL log to (`reward`, `kl`, `loss` per step).
 *
 * @param rows `metrics.jsonl` rows (any order).
 * @param options Stages, metrics, legend names, title, size.
 * @returns The figure.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { trainingFigure } from "./training_figure.ts";
 *
 * const rows = [0, 1, 2].flatMap((step) => [
 *   { stage: "grpo", step, "rollout/reward_mean": step / 4 },
 *   { stage: "mempo", step, "rollout/reward_mean": step / 2 },
 * ]);
 * const svg = trainingFigure(rows, { metrics: ["rollout/reward_mean"], labels: { grpo: "GRPO", mempo: "MemPO" } }).svg;
 * assert.ok(svg.includes(">GRPO</text>") && svg.includes(">MemPO</text>"));
 * ```
 */
export function trainingFigure(rows: readonly TrainingRow[], options: TrainingFigureOptions = {}): SvgFigure {
  const present = [...new Set(rows.map((r) => String(r.stage)))];
  const stages = options.stages ?? present.filter((s) => !SFT_STAGES.includes(s));
  for (const s of stages) {
    if (!present.includes(s)) {
      throw new Error(
        `trainingFigure: stages has "${s}", which no row has (stages in the rows: ${present.join(", ")})`,
      );
    }
  }
  const metrics = options.metrics ?? TRAINING_PANELS;
  if (metrics.length === 0) throw new Error("trainingFigure: metrics is empty: give at least one metric key");
  const label = (stage: string) => options.labels?.[stage] ?? stage;
  const slots = agentSlots(stages.map(label));
  const ordered = [...stages].sort((a, b) => slots.get(label(a))! - slots.get(label(b))!);
  const byStage = new Map(
    stages.map((s) => [s, rows.filter((r) => String(r.stage) === s).sort((a, b) => Number(a.step) - Number(b.step))]),
  );
  const panels = metrics.map((key) => ({
    yLabel: TRAINING_METRICS[key]?.axis ?? key,
    yDomain: TRAINING_METRICS[key]?.domain,
    series: ordered.map((s) => ({
      name: label(s),
      points: byStage.get(s)!.map((r) => {
        const v = r[key];
        return [Number(r.step), typeof v === "number" ? v : NaN] as [number, number];
      }),
      style: seriesStyle(slots.get(label(s))!),
    })),
  }));
  return linePanels(panels, {
    title: options.title ?? "Training per step",
    xLabel: options.xLabel ?? "step (count)",
    width: options.width,
    height: options.height ?? (metrics.length === 1 ? 240 : 220),
  });
}
