import assert from "node:assert/strict";
import { gaeTurnSequences, outcomeTurnSequences } from "../../lib/train/rl_batch.ts";
import { computeGae } from "../../lib/advantage/gae.ts";
import { maskedWhiten } from "../../lib/advantage/whiten.ts";
import { assertAllClose } from "../../lib/testing/all_close.ts";

const turn = (context: number[], sampled: number[], memSpan?: [number, number]) => ({
  context,
  sampled,
  logProbs: sampled.map((_, i) => -0.1 * (i + 1)),
  ...(memSpan ? { memSpan } : {}),
});

Deno.test("outcomeTurnSequences(): A^T on every sampled token, A^M added on the <mem> span of turns ≥ 2", () => {
  const episodes = [
    { id: 0, reward: 1, turns: [turn([1], [2, 3], [0, 1]), turn([1, 2, 3, 9], [4, 5, 6], [0, 2])] },
    { id: 1, reward: 0, turns: [turn([1], [7]), turn([1, 7], [])] },
  ] as never[];
  const seqs = outcomeTurnSequences(episodes, [0.8, -0.8], [[null, -1.22], [null, null]], { memCoef: 1 });
  assert.equal(seqs.length, 3, "an empty turn produces no sequence");
  assert.deepEqual(seqs[0]!.extras.advantages, [0, 0.8, 0.8]);
  assertAllClose(seqs[1]!.extras.advantages!, [0, 0, 0, 0, 0.8 - 1.22, 0.8 - 1.22, 0.8]);
  assert.deepEqual(seqs[1]!.lossMask, [0, 0, 0, 0, 1, 1, 1]);
  assertAllClose(seqs[1]!.extras.oldLogProbs!, [0, 0, 0, 0, -0.1, -0.2, -0.3]);
  assert.deepEqual(seqs[2]!.extras.advantages, [0, -0.8]);
  // closeTag false: the span's last token (`</mem>`) keeps A^T only
  const content = outcomeTurnSequences(episodes, [0.8, -0.8], [[null, -1.22], [null, null]], {
    memCoef: 1,
    closeTag: false,
  });
  assertAllClose(content[1]!.extras.advantages!, [0, 0, 0, 0, 0.8 - 1.22, 0.8, 0.8]);
  assert.deepEqual(content[0]!.extras.advantages, seqs[0]!.extras.advantages, "turn 1 has no memory credit");
});

Deno.test("outcomeTurnSequences(): a turn before its task's learnFrom (a scripted teacher's) gives no sequence", () => {
  const episodes = [
    {
      id: 0,
      reward: 1,
      task: { learnFrom: 1 },
      turns: [turn([1], [2, 3], [0, 1]), turn([1, 2, 3, 9], [4, 5, 6], [0, 2])],
    },
    { id: 1, reward: 0, task: { learnFrom: 0 }, turns: [turn([1], [7]), turn([1, 7], [8])] },
  ] as never[];
  const seqs = outcomeTurnSequences(episodes, [0.8, -0.8], [[null, -1.22], [null, null]], { memCoef: 1 });
  assert.deepEqual(seqs.map((s) => [s.episode, s.turn]), [[0, 1], [1, 0], [1, 1]]);
  assertAllClose(seqs[0]!.extras.advantages!, [0, 0, 0, 0, 0.8 - 1.22, 0.8 - 1.22, 0.8]);
});

Deno.test("outcomeTurnSequences() spanWeight 'span': A^M · L̄ / L on each span, L̄ over the batch's credited spans", () => {
  const episodes = [
    { id: 0, reward: 1, turns: [turn([1], [2, 3], [0, 1]), turn([1, 2, 3, 9], [4, 5, 6, 7, 8], [0, 4])] },
    { id: 1, reward: 0, turns: [turn([1], [7]), turn([1, 7, 9], [10, 11, 12], [0, 2]), turn([1, 9], [], [0, 0])] },
  ] as never[];
  const memory = [[null, 0.6], [null, -0.6, 0.3]];
  const seqs = outcomeTurnSequences(episodes, [0.5, -0.5], memory, { memCoef: 2, spanWeight: "span" });
  // credited spans: 4 and 2 tokens (the empty turn makes no sequence and gets no credit) → L̄ = 3
  const a0 = 0.5 + 2 * 0.6 * 3 / 4;
  const a1 = -0.5 - 2 * 0.6 * 3 / 2;
  assertAllClose(seqs[1]!.extras.advantages!, [0, 0, 0, 0, a0, a0, a0, a0, 0.5]);
  assertAllClose(seqs[3]!.extras.advantages!, [0, 0, 0, a1, a1, -0.5]);
  // both spans now carry the same |total| memory weight: 4 · 0.45 = 2 · 0.9
  const memTotal = (s: number[], at: number) => s.slice(at).reduce((a, x) => a + x, 0);
  assertAllClose(memTotal(seqs[1]!.extras.advantages!.slice(0, 8), 4) - 4 * 0.5, 3.6);
  assertAllClose(memTotal(seqs[3]!.extras.advantages!.slice(0, 5), 3) + 2 * 0.5, -3.6);
  // "token" (MemPO) gives each token A^M, whatever the span's length
  const token = outcomeTurnSequences(episodes, [0.5, -0.5], memory, { memCoef: 2 });
  assertAllClose(token[1]!.extras.advantages!.slice(4, 8), [1.7, 1.7, 1.7, 1.7]);
  assertAllClose(token[3]!.extras.advantages!.slice(3, 5), [-1.7, -1.7]);
  assert.throws(
    () => outcomeTurnSequences(episodes, [0.5, -0.5], memory, { spanWeight: "mean" as never }),
    /spanWeight must be "token" or "span", current value is "mean"/,
  );
});

Deno.test("gaeTurnSequences(): GAE over each trajectory's sampled tokens (tool output skipped), whitened", () => {
  const episodes = [
    { id: 0, reward: 1, turns: [turn([1], [2, 3]), turn([1, 2, 3, 9, 9], [4])] },
    { id: 1, reward: 0, turns: [turn([1], [5, 6, 7])] },
  ] as never[];
  const values = [[[0.1, 0.2], [0.3]], [[0.5, 0.4, 0.2]]];
  const seqs = gaeTurnSequences(episodes, values, { gamma: 1, lambda: 0.9 });
  const ref = computeGae({
    rewards: [[0, 0, 1], [0, 0, 0]],
    values: [[0.1, 0.2, 0.3], [0.5, 0.4, 0.2]],
    mask: [[1, 1, 1], [1, 1, 1]],
  }, { gamma: 1, lambda: 0.9 });
  const white = maskedWhiten(ref.advantages, [[1, 1, 1], [1, 1, 1]]);
  assertAllClose(seqs[0]!.extras.advantages!.slice(1), white[0]!.slice(0, 2));
  assertAllClose(seqs[1]!.extras.advantages!.slice(5), white[0]!.slice(2));
  assertAllClose(seqs[1]!.extras.returns!.slice(5), ref.returns[0]!.slice(2));
  assertAllClose(seqs[2]!.extras.oldValues!.slice(1), [0.5, 0.4, 0.2]);
});
