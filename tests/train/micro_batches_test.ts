import assert from "node:assert/strict";
import { tf } from "../../lib/tf.ts";
import { accumulateGradients, splitByTokens } from "../../lib/train/micro_batches.ts";
import { modelPreset } from "../../lib/model/config.ts";
import { createModel, trainableVariables } from "../../lib/model/params.ts";
import { collateLm, disposeLmBatch } from "../../lib/train/collate.ts";
import { chunksByTokens, sequenceLogProbs } from "../../lib/model/score.ts";
import { maskedSum } from "../../lib/tensor/masked.ts";
import { assertAllClose } from "../../lib/testing/all_close.ts";

Deno.test("splitByTokens() bounds rows × longest length, shortest first, every sequence once", () => {
  const s = (n: number, id = 0) => ({ tokens: new Array(n).fill(id), lossMask: new Array(n).fill(1) });
  const groups = splitByTokens([s(5), s(5), s(5), s(20), s(2)], 20);
  assert.deepEqual(groups.map((g) => g.map((x) => x.tokens.length)), [[2, 5, 5, 5], [20]]);
  // equal lengths keep their order; a random minibatch pads less than in arrival order
  assert.deepEqual(splitByTokens([s(3, 1), s(3, 2), s(3, 3)], 100)[0]!.map((x) => x.tokens[0]), [1, 2, 3]);
  const lengths = [90, 300, 120, 95, 500, 130, 250, 100, 110, 400, 92, 140];
  const padded = (gs: { tokens: number[] }[][]) =>
    gs.reduce((a, g) => a + g.length * Math.max(...g.map((x) => x.tokens.length)), 0);
  const groupsOf = splitByTokens(lengths.map((n) => s(n)), 1024);
  assert.deepEqual(groupsOf.flat().map((x) => x.tokens.length), [...lengths].sort((a, b) => a - b));
  assert.ok(groupsOf.every((g) => g.length * Math.max(...g.map((x) => x.tokens.length)) <= 1024));
  assert.equal(padded(groupsOf), 7 * 130 + 3 * 300 + 2 * 500, "sorted: 90–130, 140–300, 400–500");
  const arrival = chunksByTokens(lengths.map((n) => s(n)), (x) => x.tokens.length, Infinity, 1024);
  assert.ok(padded(groupsOf) < padded(arrival), `sorted ${padded(groupsOf)} vs arrival order ${padded(arrival)}`);
  assert.throws(() => splitByTokens([], 0), /maxTokens must be a positive integer/);
});

Deno.test("accumulateGradients() over micro-batches equals the gradient of the whole batch", () => {
  const m = createModel(modelPreset("tiny", 12), { seed: 2 });
  const seqs = [
    { tokens: [1, 2, 3, 4, 5], lossMask: [0, 1, 1, 1, 1] },
    { tokens: [6, 7, 8], lossMask: [0, 0, 1] },
    { tokens: [9, 10, 11, 2], lossMask: [0, 1, 0, 1] },
  ];
  const N = 7;
  const loss = (b: ReturnType<typeof collateLm>) =>
    tf.div(tf.neg(maskedSum(sequenceLogProbs(m, b.tokens, b.targets), b.mask)), N) as tf.Scalar;
  const whole = collateLm(seqs, 0);
  const parts = [collateLm(seqs.slice(0, 1), 0), collateLm(seqs.slice(1), 0)];
  const a = accumulateGradients([whole], trainableVariables(m), loss);
  const b = accumulateGradients(parts, trainableVariables(m), loss);
  assertAllClose(b.value, a.value.arraySync() as number, { rtol: 1e-5 });
  for (const k of Object.keys(a.grads)) {
    assertAllClose(b.grads[k]!, a.grads[k]!.arraySync() as number[], { rtol: 1e-3, atol: 1e-6, msg: k });
  }
  tf.dispose([a.value, b.value, Object.values(a.grads), Object.values(b.grads)]);
  [whole, ...parts].forEach(disposeLmBatch);
  m.dispose();
});
