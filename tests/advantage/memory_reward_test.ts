import assert from "node:assert/strict";
import { memoryReward } from "../../lib/advantage/memory_reward.ts";
import { assertAllClose } from "../../lib/testing/all_close.ts";

const L = Math.log;

Deno.test("memoryReward() reproduces the seed's two turns: −0.23 and +0.05", () => {
  const r = memoryReward({
    memAnswerLogProbs: [[-5, L(0.12), L(0.12), -3], [-5, L(0.73), L(0.73), -3]],
    fullAnswerLogProbs: [[-6, L(0.35), L(0.35), -2], [-1, L(0.68), L(0.68), -4]],
    answerMask: [[0, 1, 1, 0], [0, 1, 1, 0]],
  });
  assertAllClose(r.pMem, [0.12, 0.73]);
  assertAllClose(r.pFull, [0.35, 0.68]);
  assertAllClose(r.reward, [-0.23, 0.05]);
});

Deno.test("memoryReward() is the geometric mean of the answer-token probabilities", () => {
  // tokens 0.5 and 0.2 → exp((ln .5 + ln .2)/2) = √0.1
  const r = memoryReward({
    memAnswerLogProbs: [[L(0.5), L(0.2)]],
    fullAnswerLogProbs: [[L(0.9), L(0.9)]],
    answerMask: [[1, 1]],
  });
  assertAllClose(r.pMem, [Math.sqrt(0.1)]);
  assertAllClose(r.reward, [Math.sqrt(0.1) - 0.9]);
});

Deno.test("memoryReward() threshold keeps confident tokens per context; empty → P = 0", () => {
  const r = memoryReward({
    memAnswerLogProbs: [[L(0.9), L(0.3)], [L(0.2), L(0.4)]],
    fullAnswerLogProbs: [[L(0.6), L(0.8)], [L(0.6), L(0.5)]],
    answerMask: [[1, 1], [1, 1]],
  }, { threshold: 0.5 });
  assertAllClose(r.pMem, [0.9, 0]); // row 1: no memory token above 0.5
  assertAllClose(r.pFull, [Math.sqrt(0.48), 0.6]); // 0.5 is not > 0.5
  assert.throws(
    () => memoryReward({ memAnswerLogProbs: [[0]], fullAnswerLogProbs: [[0]], answerMask: [[1]] }, { threshold: 1.5 }),
    /threshold must be in \[0, 1\), current value is 1.5/,
  );
  assert.throws(
    () => memoryReward({ memAnswerLogProbs: [[0]], fullAnswerLogProbs: [[0]], answerMask: [[1]] }, { threshold: -0.1 }),
    /threshold must be in \[0, 1\), current value is -0.1/,
  );
});

Deno.test("memoryReward() threshold 0 keeps every token, as no threshold does", () => {
  const inputs = {
    memAnswerLogProbs: [[L(0.9), L(0.01)], [L(0.2), L(0.4)]],
    fullAnswerLogProbs: [[L(0.6), L(0.8)], [-80, L(0.5)]],
    answerMask: [[1, 1], [1, 0]],
  };
  const off = memoryReward(inputs);
  assert.deepEqual(memoryReward(inputs, { threshold: 0 }), off);
  assertAllClose(off.pMem, [Math.sqrt(0.009), 0.2]);
  assertAllClose(off.pFull, [Math.sqrt(0.48), Math.exp(-80)]);
});

Deno.test("memoryReward() coverage: P times the share of answer tokens kept; no-op without a threshold", () => {
  const inputs = {
    // row 0: the memory is sure of 1 answer token of 3, the history of all 3; row 1: padding (mask 0) not counted
    memAnswerLogProbs: [[L(0.95), L(0.1), L(0.2)], [L(0.7), L(0.6), -50]],
    fullAnswerLogProbs: [[L(0.9), L(0.8), L(0.7)], [L(0.4), L(0.9), -50]],
    answerMask: [[1, 1, 1], [1, 1, 0]],
  };
  const kept = memoryReward(inputs, { threshold: 0.5 });
  const cov = memoryReward(inputs, { threshold: 0.5, coverage: true });
  const gFull = Math.cbrt(0.9 * 0.8 * 0.7);
  assertAllClose(kept.reward, [0.95 - gFull, Math.sqrt(0.42) - 0.9]);
  assert.ok(kept.reward[0]! > 0, "MemPO's kept-token mean prefers the memory that knows less");
  assertAllClose(cov.pMem, [0.95 / 3, Math.sqrt(0.42)]);
  assertAllClose(cov.pFull, [gFull, 0.9 / 2]);
  assertAllClose(cov.reward, [0.95 / 3 - gFull, Math.sqrt(0.42) - 0.45]);
  assert.deepEqual(memoryReward(inputs, { coverage: true }), memoryReward(inputs));
  assert.throws(
    () => memoryReward(inputs, { coverage: 1 as never }),
    /coverage must be true or false, current value is 1/,
  );
});

Deno.test("memoryReward() rejects mismatched shapes and NaN", () => {
  assert.throws(
    () => memoryReward({ memAnswerLogProbs: [[0, 0]], fullAnswerLogProbs: [[0]], answerMask: [[1]] }),
    /memAnswerLogProbs must have shape \[1, 1\]/,
  );
  assert.throws(
    () => memoryReward({ memAnswerLogProbs: [[NaN]], fullAnswerLogProbs: [[0]], answerMask: [[1]] }),
    /memAnswerLogProbs\[0\]\[0\] must be a finite number, current value is NaN/,
  );
  assert.deepEqual(memoryReward({ memAnswerLogProbs: [[-1]], fullAnswerLogProbs: [[-1]], answerMask: [[0]] }).reward, [
    0,
  ]);
});
