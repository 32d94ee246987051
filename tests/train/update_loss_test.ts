import assert from "node:assert/strict";
import { tf } from "../../lib/tf.ts";
import { modelPreset } from "../../lib/model/config.ts";
import { createModel } from "../../lib/model/params.ts";
import { sequenceLogProbs, sequenceLogProbsAndEntropy } from "../../lib/model/score.ts";
import { UPDATE_METRICS, updatePieceLoss } from "../../lib/train/update_loss.ts";

const config = { clipLow: 0.2, clipHigh: 0.2, klCoef: 0.25, klEstimator: "low_var_kl" as const, temperature: 1 };

Deno.test("updatePieceLoss(): PPO-clip and the reference KL of a micro-batch against a loop over its tokens", () => {
  const policy = createModel(modelPreset("tiny", 12), { seed: 2 });
  const reference = createModel(modelPreset("tiny", 12), { seed: 7 });
  const tokens = tf.tensor2d([[1, 2, 3, 4], [5, 6, 7, 0]], undefined, "int32");
  const targets = tf.tensor2d([[2, 3, 4, 5], [6, 7, 8, 0]], undefined, "int32");
  const maskRows = [[0, 1, 1, 1], [1, 1, 0, 0]];
  const mask = tf.tensor2d(maskRows);
  const logp = sequenceLogProbs(policy, tokens, targets).arraySync() as number[][];
  const ref = sequenceLogProbs(reference, tokens, targets);
  const refRows = ref.arraySync() as number[][];
  // π_old: the policy shifted by ±0.5 on some tokens, so one ratio leaves [1 − ε, 1 + ε] on each side
  // (every ratio stays under e^0.5 < 3, so PPO's dual clip for Â < 0 never binds and the loop leaves it out)
  const shift = [[0, 0.5, -0.5, 0.01], [-0.01, 0.5, 0, 0]];
  const advRows = [[0, 1, -1, 2], [-1.5, -1, 0, 0]];
  const oldRows = logp.map((r, i) => r.map((x, j) => x - shift[i]![j]!));
  const piece = {
    tokens,
    targets,
    mask,
    oldLogProbs: tf.tensor2d(oldRows),
    advantages: tf.tensor2d(advRows),
    ref,
    numTokens: 5,
  };
  const N = 8; // the minibatch holds 3 more learned tokens in other micro-batches
  const { loss, metrics } = updatePieceLoss(policy, piece, config, N);
  // the slow reference: every learned token in turn
  let pg = 0, clipped = 0, approxKl = 0, kl = 0;
  for (let i = 0; i < 2; i++) {
    for (let j = 0; j < 4; j++) {
      if (maskRows[i]![j] === 0) continue;
      const ratio = Math.exp(logp[i]![j]! - oldRows[i]![j]!);
      const a = advRows[i]![j]!;
      const clip = Math.min(Math.max(ratio, 1 - config.clipLow), 1 + config.clipHigh);
      pg += Math.max(-a * ratio, -a * clip);
      if (-a * clip > -a * ratio) clipped += 1;
      approxKl += oldRows[i]![j]! - logp[i]![j]!;
      const d = refRows[i]![j]! - logp[i]![j]!; // k3: e^d − d − 1
      kl += Math.exp(d) - d - 1;
    }
  }
  const close = (got: tf.Scalar, want: number, what: string) =>
    assert.ok(Math.abs(got.dataSync()[0]! - want) < 1e-5, `${what}: ${got.dataSync()[0]} against ${want}`);
  assert.ok(clipped >= 1 && clipped < 5, `${clipped} clipped tokens`);
  close(metrics.pg, pg / N, "pg");
  close(metrics.refKl, kl / N, "refKl");
  close(metrics.clip, clipped / N, "clip (the piece's fraction × its share 5/8)");
  close(metrics.approxKl, approxKl / N, "approxKl");
  close(loss, pg / N + config.klCoef * kl / N, "loss");
  // the entropy term: the mean entropy of the learned tokens, over N
  const { entropy } = sequenceLogProbsAndEntropy(policy, tokens, targets);
  const h = entropy.arraySync() as number[][];
  close(metrics.entropy, maskRows.flat().reduce((s, m, k) => s + m * h[Math.floor(k / 4)]![k % 4]!, 0) / N, "entropy");
  assert.deepEqual(Object.keys(metrics).sort(), [...UPDATE_METRICS].sort());
  tf.dispose([tokens, targets, mask, ref, piece.oldLogProbs, piece.advantages, loss, entropy, Object.values(metrics)]);
  policy.dispose();
  reference.dispose();
});
