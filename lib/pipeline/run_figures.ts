/**
 * The figures of a run, by the file name `writeEvalFiles` gives them: the
 * evaluation against objectives and the training curves. Notebooks display
 * the same objects, so eval.md and a notebook show the same figures.
 *
 * @module
 */
import { AGENT_NAMES, type EvalRow } from "../eval/evaluate.ts";
import { type MetricsRow, rlStages } from "../train/metrics.ts";
import type { SvgFigure } from "../viz/display.ts";
import { evalFigure } from "../viz/eval_figure.ts";
import { trainingFigure } from "../viz/training_figure.ts";

/** The x-axis label of the RL training curves. */
export const RL_STEP_AXIS = "RL step (count)";

/**
 * A run's figures by file name:
 *
 * - `eval_f1.svg`: F1 vs objectives, per agent and context policy;
 * - `eval_tokens.svg`: total tokens per episode vs objectives;
 * - `train_reward.svg`: the RL outcome reward per step, one line per algorithm;
 * - `train_curves.svg`: reward, reference KL and policy loss per step, one panel each;
 * - `train_signal.svg`: the share of groups with equal rewards and the entropy of the
 *   sampled tokens per step (what the updates had to work with).
 *
 * The training figures are left out when `metrics` holds no RL step, and
 * `train_signal.svg` when no RL step logs `grpo/frac_zero_std`.
 *
 * Source: MemPO (arXiv 2603.00680) Figure 1 (performance and tokens vs
 * objectives); verl / TRL step-wise logs (reward, KL, loss).
 *
 * @param rows Evaluation rows.
 * @param metrics The run's `metrics.jsonl` rows.
 * @returns Figures, in eval.md order.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runFigures } from "./run_figures.ts";
 *
 * const row = { agent: "MemPO", contextPolicy: "memory", objectives: 1, em: 1, f1: 1, formatValid: 1, reward: 1, totalTokens: 90, peakContext: 60, episodes: 4 } as const;
 * const metrics = [0, 1].map((step) => ({ stage: "mempo", step, "rollout/reward_mean": 0.5, "kl/ref": 0, "loss/policy": 0 }));
 * assert.deepEqual(Object.keys(runFigures([row], metrics)), ["eval_f1.svg", "eval_tokens.svg", "train_reward.svg", "train_curves.svg"]);
 * const logged = metrics.map((r) => ({ ...r, "grpo/frac_zero_std": 0.5, "policy/entropy": 0.1 }));
 * assert.ok("train_signal.svg" in runFigures([row], logged));
 * assert.deepEqual(Object.keys(runFigures([row], [])), ["eval_f1.svg", "eval_tokens.svg"]);
 * ```
 */
export function runFigures(rows: readonly EvalRow[], metrics: readonly MetricsRow[]): Record<string, SvgFigure> {
  const figures: Record<string, SvgFigure> = {
    "eval_f1.svg": evalFigure(rows, "f1"),
    "eval_tokens.svg": evalFigure(rows, "totalTokens"),
  };
  const stages: string[] = rlStages(metrics);
  if (stages.length > 0) {
    const common = { stages, labels: AGENT_NAMES, xLabel: RL_STEP_AXIS };
    figures["train_reward.svg"] = trainingFigure(metrics, {
      ...common,
      metrics: ["rollout/reward_mean"],
      title: "Training reward per step",
    });
    figures["train_curves.svg"] = trainingFigure(metrics, { ...common, title: "Reward, reference KL and policy loss" });
    if (metrics.some((r) => stages.includes(String(r.stage)) && typeof r["grpo/frac_zero_std"] === "number")) {
      figures["train_signal.svg"] = trainingFigure(metrics, {
        ...common,
        metrics: ["grpo/frac_zero_std", "policy/entropy"],
        title: "Groups with equal rewards and entropy of the sampled tokens",
      });
    }
  }
  return figures;
}
