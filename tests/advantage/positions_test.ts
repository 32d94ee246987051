import assert from "node:assert/strict";
import { responseLogProbPositions } from "../../lib/advantage/positions.ts";
import { tf } from "../../lib/tf.ts";
import { tokenLogProbs } from "../../lib/tensor/log_probs.ts";
import { assertAllClose } from "../../lib/testing/all_close.ts";

Deno.test("responseLogProbPositions() puts response token j at promptLen − 1 + j", () => {
  assert.deepEqual(responseLogProbPositions([1, 4], 3), [[0, 1, 2], [3, 4, 5]]);
  assert.deepEqual(responseLogProbPositions([2], 0), [[]]);
});

Deno.test("responseLogProbPositions() reads the logits that predict the response tokens", () => {
  // sequence [p0 p1 r0 r1]; logits at position i are peaked on token i + 1
  const seq = [3, 1, 4, 2];
  const logits = tf.tensor3d([seq.map((_, i) => Array.from({ length: 5 }, (_, v) => (v === seq[i + 1] ? 10 : 0)))]);
  const all = tokenLogProbs(logits, [[...seq.slice(1), 0]]).arraySync()[0]!;
  const pos = responseLogProbPositions([2], 2)[0]!;
  const peaked = 10 - Math.log(Math.exp(10) + 4);
  assertAllClose(pos.map((p) => all[p]!), [peaked, peaked], { atol: 1e-6 });
  tf.dispose(logits);
});

Deno.test("responseLogProbPositions() rejects bad lengths", () => {
  assert.throws(() => responseLogProbPositions([0], 2), /promptLens\[0\] must be an integer ≥ 1, current value is 0/);
  assert.throws(() => responseLogProbPositions([1], -1), /responseLen must be a non-negative integer/);
});
