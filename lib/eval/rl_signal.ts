/**
 * What each RL stage's updates had to work with, read off its `metrics.jsonl`
 * rows by quarter of its steps: the outcome reward, the share of groups whose
 * rewards were all equal (GRPO's advantage is 0 on each), the entropy of the
 * sampled tokens, the KL to the reference and the share of clipped tokens.
 * A policy that samples nearly the same episode in every rollout of a group
 * (low entropy, many equal groups) gives the update little to learn from; a
 * clip share near 0 and a flat reference KL say the policy barely moved.
 *
 * @module
 */
import type { MetricsRow } from "../train/metrics.ts";
import { mean } from "./_mean.ts";

/** The metrics summarised per quarter, by their `metrics.jsonl` key. */
export const RL_SIGNAL_METRICS = {
  reward: "rollout/reward_mean",
  equalShare: "grpo/frac_zero_std",
  entropy: "policy/entropy",
  refKl: "kl/ref",
  clipFraction: "ppo/clip_fraction",
} as const;

/** A summarised metric: {@linkcode RL_SIGNAL_METRICS}'s keys. */
export type RlSignalMetric = keyof typeof RL_SIGNAL_METRICS;

/** One RL stage, its steps cut into (at most) four consecutive quarters. */
export interface RlSignalRow {
  /** The stage (`mempo`, `grpo`, `ppo`). */
  stage: string;
  /** Steps logged. */
  steps: number;
  /** First and last step of each quarter. */
  quarters: [number, number][];
  /** Mean of each metric over each quarter's steps that log it (NaN where none does; `null` in eval.json), by metric. */
  means: Record<RlSignalMetric, number[]>;
}

/**
 * For each stage, in the given order: its step rows sorted by step, cut into
 * min(4, n) consecutive quarters (quarter q holds steps ⌊q·n/Q⌋ … ⌊(q+1)·n/Q⌋ − 1
 * of the n logged), and each {@linkcode RL_SIGNAL_METRICS} metric's mean per
 * quarter over the rows that log it. Stages without rows are left out.
 *
 * Source: the `critic/score/mean`, `actor/entropy`, `actor/kl_loss` and
 * `actor/pg_clipfrac` step metrics verl logs, and DAPO's (arXiv 2503.14476)
 * dynamic-sampling argument: a group whose rewards are all equal gives GRPO no
 * gradient.
 *
 * @param metrics `metrics.jsonl` rows (any order; rows of other stages ignored).
 * @param stages The RL stages to summarise, in row order (a repeated one counts once).
 * @returns One row per stage that has rows.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { rlSignal } from "./rl_signal.ts";
 *
 * const metrics = [0, 1, 2, 3, 4].map((step) => ({ stage: "grpo", step, "rollout/reward_mean": step / 4, "grpo/frac_zero_std": 0.5 }));
 * const row = rlSignal(metrics, ["grpo", "mempo"])[0]!;
 * assert.deepEqual(row.quarters, [[0, 0], [1, 1], [2, 2], [3, 4]]);
 * assert.deepEqual(row.means.reward, [0, 0.25, 0.5, 0.875]);
 * assert.ok(Number.isNaN(row.means.entropy[0]!));
 * ```
 */
export function rlSignal(metrics: readonly MetricsRow[], stages: readonly string[]): RlSignalRow[] {
  const out: RlSignalRow[] = [];
  for (const stage of new Set(stages)) {
    const rows = metrics.filter((r) => r.stage === stage && typeof r.step === "number")
      .sort((a, b) => Number(a.step) - Number(b.step));
    const n = rows.length;
    if (n === 0) continue;
    const count = Math.min(4, n);
    const cuts = Array.from(
      { length: count },
      (_, q) => rows.slice(Math.floor(q * n / count), Math.floor((q + 1) * n / count)),
    );
    const means = Object.fromEntries(
      Object.entries(RL_SIGNAL_METRICS).map(([name, key]) => [
        name,
        cuts.map((cut) => {
          const values = cut.map((r) => r[key]).filter((v): v is number => typeof v === "number" && Number.isFinite(v));
          return mean(values); // NaN where the quarter logs none
        }),
      ]),
    ) as Record<RlSignalMetric, number[]>;
    out.push({
      stage,
      steps: n,
      quarters: cuts.map((cut) => [Number(cut[0]!.step), Number(cut.at(-1)!.step)]),
      means,
    });
  }
  return out;
}

/**
 * The rows of {@linkcode rlSignal} as an eval.md section: one table row per
 * stage, each cell the quarters' means in step order (– where a quarter logs
 * none of the metric).
 *
 * Source: the per-step metrics panel of verl's trainer logs (score, entropy,
 * KL, clip fraction), here condensed to quarters for a text report.
 *
 * @param rows Rows of {@linkcode rlSignal}.
 * @param labels Display name per stage (e.g. `AGENT_NAMES`); default: the stage.
 * @returns Markdown (a heading, a paragraph, a table).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { rlSignal, rlSignalMarkdown } from "./rl_signal.ts";
 *
 * const metrics = [0, 1].map((step) => ({ stage: "mempo", step, "rollout/reward_mean": 0.5, "grpo/frac_zero_std": step, "policy/entropy": 0.07 }));
 * const md = rlSignalMarkdown(rlSignal(metrics, ["mempo"]), { mempo: "MemPO" });
 * assert.match(md, /\| MemPO \| 2 \| 0\.50 0\.50 \| 0 % 100 % \| 0\.07 0\.07 \| – – \| – – \|/);
 * ```
 */
export function rlSignalMarkdown(rows: readonly RlSignalRow[], labels: Readonly<Record<string, string>> = {}): string {
  const cells = (values: readonly number[], format: (v: number) => string) =>
    values.map((v) => Number.isFinite(v) ? format(v) : "–").join(" ");
  const fixed = (digits: number) => (v: number) => v.toFixed(digits);
  const percent = (digits: number) => (v: number) => `${(100 * v).toFixed(digits)} %`;
  return [
    "## What the RL updates had to work with",
    "",
    "Per RL stage, the means over each quarter of its steps (`metrics.jsonl`): the outcome reward of the sampled",
    "episodes, the share of groups whose rewards were all equal (GRPO's advantage is 0 on each; per objective count",
    "in `grpo/frac_zero_std_k{k}`), the entropy of the sampled tokens (nats per token), the KL to the reference",
    "(nats per token) and the share of tokens the PPO clip cut. Few groups with unequal rewards, a low entropy",
    "and a clip share near 0 mean the updates had little to learn from and barely moved the policy.",
    "",
    "| agent | steps | reward | equal-reward groups | entropy | KL to reference | clipped tokens |",
    "| --- | --- | --- | --- | --- | --- | --- |",
    ...rows.map((r) =>
      `| ${labels[r.stage] ?? r.stage} | ${r.steps} | ${cells(r.means.reward, fixed(2))} | ${
        cells(r.means.equalShare, percent(0))
      } | ${cells(r.means.entropy, fixed(2))} | ${cells(r.means.refKl, fixed(3))} | ${
        cells(r.means.clipFraction, percent(1))
      } |`
    ),
  ].join("\n");
}
