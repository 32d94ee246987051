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
