import assert from "node:assert/strict";
import { WARMUP_LOSS_WINDOW, warmupFormed } from "../../lib/train/warmup_stop.ts";
import { createRng } from "../../lib/random.ts";

// the rule as written: steps run ≥ the minimum, and the mean of the last W losses below the threshold
function slowFormed(losses: number[], minSteps: number, threshold: number): boolean {
  if (losses.length < minSteps || losses.length < WARMUP_LOSS_WINDOW) return false;
  const last = losses.slice(-WARMUP_LOSS_WINDOW);
  return last.reduce((a, b) => a + b, 0) / last.length < threshold;
}

Deno.test("warmupFormed(): the mean of the last 20 losses against the threshold, once the minimum steps have run", () => {
  assert.equal(WARMUP_LOSS_WINDOW, 20);
  // a phase change: 5 nats, then 0.25 from step 40 on; the mean of the last 20 of t steps is below 1 from t = 57 on
  // (t = 56: 4 × 5 + 16 × 0.25 = 24 → 1.2; t = 57: 3 × 5 + 17 × 0.25 = 19.25 → 0.9625)
  const losses = Array.from({ length: 80 }, (_, i) => (i < 40 ? 5 : 0.25));
  const first = (minSteps: number, threshold: number) =>
    Array.from({ length: 81 }, (_, t) => t).find((t) => warmupFormed(losses.slice(0, t), minSteps, threshold));
  assert.equal(first(10, 1), 57);
  assert.equal(first(70, 1), 70, "never before the minimum");
  assert.equal(first(0, 5.0001), 20, "never before a whole window");
  assert.equal(first(0, 0.25), undefined, "strictly below (twenty 0.25s sum to 5 exactly)");
  // against the slow rule on random curves
  const rng = createRng(3);
  for (let trial = 0; trial < 200; trial++) {
    const xs = Array.from({ length: rng.int(60) }, () => rng.next() * 4);
    const minSteps = rng.int(50);
    const threshold = 0.5 + rng.next() * 3;
    assert.equal(warmupFormed(xs, minSteps, threshold), slowFormed(xs, minSteps, threshold), `trial ${trial}`);
  }
});

Deno.test("warmupFormed(): refuses a minimum or threshold that is not one, naming the value", () => {
  assert.throws(() => warmupFormed([], -1, 1), /minSteps must be an integer ≥ 0, current value is -1/);
  assert.throws(() => warmupFormed([], 1.5, 1), /minSteps must be an integer ≥ 0, current value is 1.5/);
  assert.throws(() => warmupFormed([], 0, 0), /threshold must be a positive number, current value is 0/);
  assert.throws(() => warmupFormed([], 0, NaN), /threshold must be a positive number, current value is NaN/);
});
