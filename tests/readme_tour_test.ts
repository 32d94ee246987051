// The README's "A tour in code", run as a test. tests/docs_links_test.ts checks that README.md shows exactly the
// code between the readme:start / readme:end markers below (with "./mod.ts" for "../mod.ts"), so the numbers the
// README shows are the numbers the package computes.
import assert from "node:assert/strict";
// readme:start
import {
  assertAllClose,
  combineAdvantages,
  computeGae,
  grpoAdvantages,
  memoryAdvantages,
  memoryReward,
  ppoClipLoss,
  tf,
} from "../mod.ts";
// readme:end

Deno.test("README.md's tour in code: GRPO, GAE, PPO clip and MemPO's memory credit give the numbers it shows", () => {
  const before = tf.memory().numTensors;
  // readme:start
  // Lesson 6, GRPO: four samples of one question, two right; verl's normaliser (Bessel σ, ε = 1e-6)
  assertAllClose(grpoAdvantages([1, 0, 0, 1], ["q", "q", "q", "q"]), [0.866, -0.866, -0.866, 0.866], { atol: 1e-4 });

  // Lesson 2, GAE (γ = 1, λ = 0.95): token 1 is tool output (mask 0), so its value 0.9 never enters
  const gae = computeGae({ rewards: [[0, 0, 0, 1]], values: [[0.2, 0.9, 0.4, 0.6]], mask: [[1, 0, 1, 1]] }, {
    gamma: 1,
    lambda: 0.95,
  });
  assertAllClose(gae.advantages, [[0.751, 0.58, 0.58, 0.4]]);

  // Lesson 3, PPO clip on tensors: ratio 1.5 on A = +1 is clipped to 1.2, ratio 0.5 on A = −1 to 0.8
  tf.tidy(() => {
    const t = (x: number[][]) => tf.tensor2d(x);
    const ppo = ppoClipLoss({
      logProbs: t([[Math.log(1.5), Math.log(0.5)]]),
      oldLogProbs: t([[0, 0]]),
      advantages: t([[1, -1]]),
      mask: t([[1, 1]]),
    });
    assertAllClose(ppo.loss, (-1.2 + 0.8) / 2); // token-mean of −1.2·(+1) and −0.8·(−1)
    assertAllClose(ppo.clipFraction, 1);
  });

  // Lesson 8, MemPO: R^M = P_mem − P_full, the gold answer's probability after the memory alone minus after
  // the whole history (here one answer token per turn)
  const { reward } = memoryReward({
    memAnswerLogProbs: [[Math.log(0.12)], [Math.log(0.73)]],
    fullAnswerLogProbs: [[Math.log(0.35)], [Math.log(0.68)]],
    answerMask: [[1], [1]],
  });
  assertAllClose(reward, [-0.23, 0.05]);
  // A^M: every memory of the question pooled (two trajectories; turn 1 writes none), normalised as GRPO does
  const [turn2, turn3, other] = memoryAdvantages({ rewards: [[null, ...reward], [null, 0.1]], groupIds: ["q", "q"] })
    .flat().filter((a) => a !== null); // trajectory 1's turns 2 and 3, trajectory 2's turn 2
  assertAllClose([turn2!, turn3!, other!], [-1.1432, 0.4311, 0.7122], { atol: 1e-4 });
  // the trajectory's tokens get its outcome advantage A^T = 0.8, each <mem> span A^T + A^M
  const final = combineAdvantages({
    outcomeAdvantages: [0.8],
    memorySpans: [[{ start: 1, end: 3, advantage: turn2! }, { start: 5, end: 7, advantage: turn3! }]],
    mask: [[1, 1, 1, 1, 1, 1, 1, 1]],
  });
  assertAllClose(final, [[0.8, -0.3432, -0.3432, 0.8, 0.8, 1.2311, 1.2311, 0.8]], { atol: 1e-4 });
  // readme:end
  assert.equal(tf.memory().numTensors, before, "the tour leaks no tensor");
});
