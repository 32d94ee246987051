import assert from "node:assert/strict";
import { computeGae } from "../../lib/advantage/gae.ts";
import { assertAllClose } from "../../lib/testing/all_close.ts";
import { holeyMask, randomMatrix, torchReference } from "../_helpers.ts";
import { refGae } from "../_reference/loops.ts";

Deno.test("computeGae() matches hand-computed values", () => {
  // γ = 0.9, λ = 0.5, values 0, mask [1, 1, 1], reward 1 at the end:
  // Â_2 = 1; Â_1 = 0 + 0.45·1 = 0.45; Â_0 = 0.45·0.45 = 0.2025
  const { advantages, returns } = computeGae(
    { rewards: [[0, 0, 1]], values: [[0, 0, 0]], mask: [[1, 1, 1]] },
    { gamma: 0.9, lambda: 0.5 },
  );
  assertAllClose(advantages, [[0.2025, 0.45, 1]]);
  assertAllClose(returns, [[0.2025, 0.45, 1]]);
  // with values: δ_2 = 1 − 0.5 = 0.5; δ_1 = 0 + 0.9·0.5 − 0.2 = 0.25 → Â_1 = 0.25 + 0.45·0.5 = 0.475
  const v = computeGae(
    { rewards: [[0, 1]], values: [[0.2, 0.5]], mask: [[1, 1]] },
    { gamma: 0.9, lambda: 0.5 },
  );
  assertAllClose(v.advantages, [[0.25 + 0.45 * 0.5, 0.5]]);
});

Deno.test("computeGae() equals verl's compute_gae_advantage_return (PyTorch golden cases)", async () => {
  const cases = (await torchReference()).computeGae as {
    rewards: number[][];
    values: number[][];
    mask: number[][];
    gamma: number;
    lambda: number;
    advantages: number[][];
    returns: number[][];
  }[];
  assert.equal(cases.length, 4);
  for (const c of cases) {
    const out = computeGae(c, { gamma: c.gamma, lambda: c.lambda });
    assertAllClose(out.advantages, c.advantages, { msg: `γ=${c.gamma} λ=${c.lambda}` });
    assertAllClose(out.returns, c.returns);
  }
});

Deno.test("computeGae() equals the explicit-sum oracle on sampled tokens", () => {
  const B = 10, T = 9;
  const mask = holeyMask(B, T);
  const rewards = randomMatrix(B, T, 1);
  const values = randomMatrix(B, T, 2);
  for (const [gamma, lambda] of [[1, 1], [0.9, 0.95], [0.7, 0]]) {
    const { advantages } = computeGae({ rewards, values, mask }, { gamma, lambda });
    const ref = refGae(rewards, values, mask, gamma!, lambda!);
    for (let b = 0; b < B; b++) {
      for (let t = 0; t < T; t++) if (mask[b]![t]) assertAllClose(advantages[b]![t]!, ref[b]![t]!);
    }
  }
});

Deno.test("computeGae() ignores rewards and values at masked positions", () => {
  const mask = [[1, 1, 0, 0, 1, 1, 0]];
  const rewards = [[0.1, 0, 0, 0, 0.2, 1, 0]];
  const values = [[0.3, 0.2, 0.1, 0.4, 0.5, 0.6, 0.7]];
  const base = computeGae({ rewards, values, mask }, { gamma: 0.95, lambda: 0.9 });
  const noisy = computeGae({
    rewards: [[0.1, 0, 99, -7, 0.2, 1, 5]],
    values: [[0.3, 0.2, -50, 8, 0.5, 0.6, 3]],
    mask,
  }, { gamma: 0.95, lambda: 0.9 });
  assertAllClose(noisy.advantages, base.advantages);
  // a tool span is equivalent to deleting it
  const deleted = computeGae({ rewards: [[0.1, 0, 0.2, 1]], values: [[0.3, 0.2, 0.5, 0.6]], mask: [[1, 1, 1, 1]] }, {
    gamma: 0.95,
    lambda: 0.9,
  });
  assertAllClose([0, 1, 4, 5].map((t) => base.advantages[0]![t]!), deleted.advantages[0]!);
  // masked positions carry the next sampled token's advantage; after the last one, 0
  assert.equal(base.advantages[0]![2], base.advantages[0]![4]);
  assert.equal(base.advantages[0]![6], 0);
});

Deno.test("computeGae() rejects bad input with a clear error", () => {
  assert.throws(
    () => computeGae({ rewards: [[0, NaN]], values: [[0, 0]], mask: [[1, 1]] }),
    /rewards\[0\]\[1\] must be a finite number, current value is NaN/,
  );
  assert.throws(
    () => computeGae({ rewards: [[0, 0]], values: [[0, 0, 0]], mask: [[1, 1]] }),
    /values must have shape \[1, 2\] like rewards, current shape is \[1, 3\]/,
  );
  assert.throws(() => computeGae({ rewards: [[0]], values: [[0]], mask: [[2]] }), /mask\[0\]\[0\] must be 0 or 1/);
  assert.throws(() => computeGae({ rewards: [[0]], values: [[0]], mask: [[1]] }, { gamma: 1.5 }), /gamma must be in/);
  assert.deepEqual(computeGae({ rewards: [], values: [], mask: [] }), { advantages: [], returns: [] });
});
