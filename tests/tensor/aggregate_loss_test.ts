import assert from "node:assert/strict";
import { tf } from "../../lib/tf.ts";
import { type AggMode, aggregateLoss, type AggregateOptions } from "../../lib/tensor/aggregate_loss.ts";
import { assertAllClose } from "../../lib/testing/all_close.ts";
import { assertNoTensorLeak, finiteDifference, holeyMask, randomMatrix, t2, torchReference } from "../_helpers.ts";
import { refAggregate } from "../_reference/loops.ts";

const MODES: AggMode[] = [
  "token-mean",
  "token-sum",
  "seq-mean-token-sum",
  "seq-mean-token-mean",
  "seq-mean-token-sum-norm",
];

Deno.test("aggregateLoss() equals verl's agg_loss in every mode (PyTorch golden cases)", async () => {
  const ref = (await torchReference()).aggregateLoss as {
    lossMatrix: number[][];
    mask: number[][];
    cases: { mode: AggMode; options: AggregateOptions; expected: number }[];
  };
  assert.equal(ref.cases.length, 8);
  for (const c of ref.cases) {
    assertAllClose(aggregateLoss(t2(ref.lossMatrix), t2(ref.mask), c.mode, c.options), c.expected, {
      msg: `${c.mode} ${JSON.stringify(c.options)}`,
    });
  }
});

Deno.test("aggregateLoss() hand-computed: long vs short responses", () => {
  // row 0: 4 tokens of loss 1; row 1: 1 token of loss 3
  const L = t2([[1, 1, 1, 1], [3, 0, 0, 0]]);
  const m = t2([[1, 1, 1, 1], [1, 0, 0, 0]]);
  assertAllClose(aggregateLoss(L, m, "token-mean"), 7 / 5);
  assertAllClose(aggregateLoss(L, m, "token-sum"), 7);
  assertAllClose(aggregateLoss(L, m, "seq-mean-token-sum"), 7 / 2);
  assertAllClose(aggregateLoss(L, m, "seq-mean-token-mean"), (1 + 3) / 2);
  assertAllClose(aggregateLoss(L, m, "seq-mean-token-sum-norm"), 7 / 2 / 4);
  // empty rows are excluded from the sequence mean (verl); TRL/MiniMind's all-row mean is this × nonEmpty/B
  const m2 = t2([[1, 1, 1, 1], [0, 0, 0, 0]]);
  assertAllClose(aggregateLoss(L, m2, "seq-mean-token-mean"), 1);
  assertAllClose(aggregateLoss(L, t2([[0, 0, 0, 0], [0, 0, 0, 0]]), "token-mean"), 0);
});

Deno.test("aggregateLoss() equals the slow loop and its gradient matches finite differences", () => {
  const x = randomMatrix(10, 6, 11);
  const m = holeyMask(10, 6);
  for (const mode of MODES) {
    assertAllClose(aggregateLoss(t2(x), t2(m), mode), refAggregate(x, m, mode), { msg: mode });
    const g = tf.grad((v: tf.Tensor) => aggregateLoss(tf.square(v), t2(m), mode))(t2(x));
    const fd = finiteDifference((v) => refAggregate(v.map((r) => r.map((a) => a * a)), m, mode), x);
    assertAllClose(g, fd, { rtol: 1e-4, atol: 1e-5, msg: mode });
  }
});

Deno.test("aggregateLoss() rejects bad modes, shapes and normalisers; leaks nothing", () => {
  const L = t2([[1, 2]]);
  const m = t2([[1, 1]]);
  assert.throws(() => aggregateLoss(L, m, "mean" as AggMode), /mode must be one of token-mean/);
  assert.throws(() => aggregateLoss(L, t2([[1, 1, 1]]), "token-mean"), /mask must have shape \[1, 2\]/);
  assert.throws(() => aggregateLoss(L, m, "token-mean", { dpSize: 0 }), /dpSize must be a positive finite number/);
  assert.throws(() => aggregateLoss(tf.zeros([2]), tf.zeros([2]), "token-mean"), /lossMatrix must be rank 2/);
  for (const mode of MODES) assertNoTensorLeak(() => aggregateLoss(L, m, mode));
});
