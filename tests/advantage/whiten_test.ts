import assert from "node:assert/strict";
import { maskedWhiten } from "../../lib/advantage/whiten.ts";
import { assertAllClose } from "../../lib/testing/all_close.ts";
import { torchReference } from "../_helpers.ts";

interface Case {
  x: number[][];
  mask: number[][];
  options: { unbiased?: boolean; shiftMean?: boolean };
  expected: number[][];
  minimind?: number[][];
}

Deno.test("maskedWhiten() equals verl's masked_whiten and MiniMind's whitening", async () => {
  const cases = (await torchReference()).maskedWhiten as Case[];
  for (const c of cases) {
    const out = maskedWhiten(c.x, c.mask, c.options);
    assertAllClose(out, c.expected, { msg: JSON.stringify(c.options) });
    if (c.minimind) assertAllClose(out.map((r, b) => r.map((v, t) => v * c.mask[b]![t]!)), c.minimind, { atol: 1e-7 });
  }
});

Deno.test("maskedWhiten() hand-computed: biased vs unbiased variance", () => {
  // x = 1, 3 → μ = 2; biased σ² = 1, unbiased σ² = 2
  assertAllClose(maskedWhiten([[1, 3]], [[1, 1]], { unbiased: false })[0]!, [-1, 1], { atol: 1e-7 });
  assertAllClose(maskedWhiten([[1, 3]], [[1, 1]])[0]!, [-Math.SQRT1_2, Math.SQRT1_2], { atol: 1e-7 });
  // masked entries are transformed too, with the statistics of the unmasked ones
  assertAllClose(maskedWhiten([[1, 3, 5]], [[1, 1, 0]], { unbiased: false })[0]![2]!, 3, { atol: 1e-6 });
});

Deno.test("maskedWhiten() refuses Σmask ≤ 1 for the unbiased variance", () => {
  assert.throws(() => maskedWhiten([[1, 2]], [[1, 0]]), /needs Σ mask ≥ 2, current value is 1/);
  assert.throws(() => maskedWhiten([[1, 2]], [[0, 0]]), /current value is 0/);
  assert.doesNotThrow(() => maskedWhiten([[1, 2]], [[1, 0]], { unbiased: false }));
  assert.throws(() => maskedWhiten([[1, Infinity]], [[1, 1]]), /x\[0\]\[1\] must be a finite number/);
});
