import assert from "node:assert/strict";
import { tf } from "../../lib/tf.ts";
import { modelPreset } from "../../lib/model/config.ts";
import { createModel } from "../../lib/model/params.ts";
import { scoreContinuations, sequenceLogProbs } from "../../lib/model/score.ts";
import { assertAllClose } from "../../lib/testing/all_close.ts";

Deno.test("scoreContinuations() in one batch equals scoring each pair alone", async () => {
  const m = createModel(modelPreset("tiny", 30), { seed: 21 });
  const pairs = [
    { context: [1, 2, 3, 4, 5, 6, 7], continuation: [8, 9] },
    { context: [10], continuation: [11, 12, 13, 14] },
    { context: [15, 16], continuation: [] },
    { context: [17, 18, 19], continuation: [20] },
  ];
  const batched = await scoreContinuations(m, pairs, { padId: 0 });
  for (const [i, p] of pairs.entries()) {
    const alone = await scoreContinuations(m, [p], { padId: 0 });
    assertAllClose(batched[i]!, alone[0]!, { rtol: 1e-5, atol: 1e-5, msg: `pair ${i}` });
  }
  assert.equal(batched[2]!.length, 0);
  // small batches give the same numbers
  const chunked = await scoreContinuations(m, pairs, { padId: 0, batchSize: 1 });
  assertAllClose(chunked.flat(), batched.flat(), { rtol: 1e-5, atol: 1e-5 });
  // chunks are formed shortest first ({2, 3}, then {1, 0}); results come back in input order
  const pairwise = await scoreContinuations(m, pairs, { padId: 0, batchSize: 2 });
  assert.deepEqual(pairwise.map((r) => r.length), [2, 4, 0, 1]);
  assertAllClose(pairwise.flat(), batched.flat(), { rtol: 1e-5, atol: 1e-5 });
  m.dispose();
});

Deno.test("sequenceLogProbs() equals log-softmax of the logits at the targets; temperature scales logits", () => {
  const m = createModel(modelPreset("tiny", 10), { seed: 22 });
  const tokens = tf.tensor2d([[1, 2, 3]], undefined, "int32");
  const targets = tf.tensor2d([[2, 3, 4]], undefined, "int32");
  const lp = (sequenceLogProbs(m, tokens, targets).arraySync() as number[][])[0]!;
  const hot = (sequenceLogProbs(m, tokens, targets, 0.5).arraySync() as number[][])[0]!;
  assert.ok(lp.every((v) => v < 0 && v > -10));
  assert.ok(hot.some((v, i) => Math.abs(v - lp[i]!) > 1e-4));
  tf.dispose([tokens, targets]);
  m.dispose();
});

Deno.test("scoreContinuations() rejects empty contexts and over-long pairs", async () => {
  const m = createModel(modelPreset("tiny", 10));
  await assert.rejects(
    scoreContinuations(m, [{ context: [], continuation: [1] }], { padId: 0 }),
    /pairs\[0\].context is empty/,
  );
  await assert.rejects(
    scoreContinuations(m, [{ context: new Array(600).fill(1), continuation: [1] }], { padId: 0 }),
    /more than maxPositions 512/,
  );
  m.dispose();
});
