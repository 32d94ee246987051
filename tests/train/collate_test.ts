import assert from "node:assert/strict";
import { collateLm, disposeLmBatch } from "../../lib/train/collate.ts";

Deno.test("collateLm() shifts targets, masks and extras by one and pads on the right", () => {
  const b = collateLm([
    { tokens: [1, 2, 3, 4], lossMask: [0, 0, 1, 1], extras: { adv: [9, 9, 0.5, -1] } },
    { tokens: [5, 6], lossMask: [0, 1], extras: { adv: [9, 2] } },
  ], 0);
  assert.deepEqual(b.tokens.arraySync(), [[1, 2, 3], [5, 0, 0]]);
  assert.deepEqual(b.targets.arraySync(), [[2, 3, 4], [6, 0, 0]]);
  assert.deepEqual(b.mask.arraySync(), [[0, 1, 1], [1, 0, 0]]);
  assert.deepEqual(b.extras.adv!.arraySync(), [[9, 0.5, -1], [2, 0, 0]]);
  assert.equal(b.numTokens, 3);
  disposeLmBatch(b);
  assert.throws(() => collateLm([{ tokens: [1, 2], lossMask: [1] }], 0), /lossMask has length 1, tokens has 2/);
  assert.throws(() => collateLm([], 0), /empty batch/);
});
