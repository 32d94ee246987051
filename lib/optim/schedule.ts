/**
 * Learning-rate schedule: linear warm-up then cosine decay to a floor.
 *
 * @module
 */

/**
 * The learning rate at a step.
 *
 * ```text
 * step < W:  lr · (step + 1) / W
 * else:      minLr + ½ (lr − minLr) (1 + cos(π · (step − W) / max(1, S − W)))
 * ```
 *
 * Source: Loshchilov & Hutter 2017 (SGDR, arXiv:1608.03983) cosine annealing; nanoGPT `get_lr`.
 *
 * @param step Current step (0-based).
 * @param total S, total steps.
 * @param lr Peak learning rate.
 * @param warmup W, warm-up steps.
 * @param minLr Floor. Default lr / 10.
 * @returns The learning rate.
 *
 * @example
 * ```ts
 * import { assertAllClose } from "../testing/all_close.ts";
 * import { cosineLr } from "./schedule.ts";
 *
 * assertAllClose(cosineLr(0, 100, 1, 10), 0.1);
 * assertAllClose(cosineLr(10, 100, 1, 10), 1);
 * assertAllClose(cosineLr(100, 100, 1, 10), 0.1);
 * ```
 */
export function cosineLr(step: number, total: number, lr: number, warmup: number, minLr = lr / 10): number {
  if (step < warmup) return (lr * (step + 1)) / warmup;
  const progress = Math.min(1, (step - warmup) / Math.max(1, total - warmup));
  return minLr + 0.5 * (lr - minLr) * (1 + Math.cos(Math.PI * progress));
}

/**
 * The cosine's horizon at a step of a schedule extended in stages: the first
 * of `horizons` after the step, else `total`. A run trained to h₁ and then
 * continued to h₂ (copy and resume, with the total raised) learns from step
 * h₁ on with a cosine that ends at h₂, so its learning rate rises back at h₁;
 * `cosineLr(step, stagedHorizon(step, [h₁], h₂), …)` is that schedule in one
 * run.
 *
 * ```text
 * horizon(step) = min { h ∈ horizons ∪ {total} : h > step }   (total when none)
 * ```
 *
 * Source: Loshchilov & Hutter 2017 (SGDR, arXiv:1608.03983) warm restarts, with each period's end given.
 *
 * @param step Current step (0-based).
 * @param horizons The stages' last steps, ascending, each < total.
 * @param total The schedule's last step.
 * @returns The step at which the cosine in force at `step` reaches its floor.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { stagedHorizon } from "./schedule.ts";
 *
 * assert.equal(stagedHorizon(0, [1300, 1950], 2600), 1300);
 * assert.equal(stagedHorizon(1300, [1300, 1950], 2600), 1950);
 * assert.equal(stagedHorizon(2000, [1300, 1950], 2600), 2600);
 * assert.equal(stagedHorizon(5, [], 100), 100);
 * ```
 */
export function stagedHorizon(step: number, horizons: readonly number[], total: number): number {
  return horizons.find((h) => h > step) ?? total;
}
