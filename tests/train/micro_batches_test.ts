import assert from "node:assert/strict";
import { tf } from "../../lib/tf.ts";
import { accumulateGradients, splitBalanced, splitByTokens } from "../../lib/train/micro_batches.ts";
import { createRng } from "../../lib/random.ts";
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

Deno.test("splitBalanced() makes the fewest even groups within the cap, and its largest group is the least any cut gives", () => {
  const s = (n: number) => ({ tokens: new Array(n).fill(1), lossMask: new Array(n).fill(1) });
  const cost = (g: { tokens: number[] }[]) => g.length * Math.max(...g.map((x) => x.tokens.length));
  // brute force: every way to cut the sorted lengths into k contiguous groups
  const bestCut = (len: number[], k: number): number => {
    if (k === 1) return len.length * len.at(-1)!;
    let best = Infinity;
    for (let i = k - 1; i < len.length; i++) {
      best = Math.min(best, Math.max(bestCut(len.slice(0, i), k - 1), (len.length - i) * len.at(-1)!));
    }
    return best;
  };
  const rng = createRng(7);
  for (let trial = 0; trial < 40; trial++) {
    const lengths = Array.from({ length: 2 + rng.int(9) }, () => 5 + rng.int(60));
    const cap = 40 + rng.int(300);
    const groups = splitBalanced(lengths.map(s), cap);
    const sorted = [...lengths].sort((a, b) => a - b);
    assert.deepEqual(groups.flat().map((x) => x.tokens.length), sorted, "every sequence once, shortest first");
    const k = groups.length;
    assert.ok(k % 2 === 0 || k === lengths.length, `${k} groups for ${lengths.length} rows`);
    const limit = Math.max(cap, sorted.at(-1)!);
    assert.ok(groups.every((g) => cost(g) <= limit), `a group over ${limit}`);
    assert.equal(Math.max(...groups.map(cost)), bestCut(sorted, k), `largest group of ${JSON.stringify(sorted)}`);
    // fewer groups (of the allowed counts) cannot stay within the cap
    for (let fewer = 2; fewer < k; fewer += 2) assert.ok(bestCut(sorted, fewer) > limit, `${fewer} groups fit`);
  }
  // one row longer than the cap is a group of its own, within its own length
  assert.deepEqual(splitBalanced([s(10), s(300), s(10)], 100).map((g) => g.length), [2, 1]);
  assert.deepEqual(splitBalanced([], 10), []);
  assert.throws(() => splitBalanced([s(3)], 0), /maxTokens must be a positive integer, current value is 0/);
  assert.throws(() => splitBalanced([s(3)], 10, 1.5), /multiple must be a positive integer, current value is 1.5/);
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
