import assert from "node:assert/strict";
import { tf } from "../../lib/tf.ts";
import { createAdamW } from "../../lib/optim/adamw.ts";
import { assertAllClose } from "../../lib/testing/all_close.ts";
import { torchReference } from "../_helpers.ts";

Deno.test("createAdamW() equals torch.optim.AdamW over 4 steps (decay on matrices only)", async () => {
  const c = (await torchReference()).adamw as {
    w: number[][];
    b: number[];
    lr: number;
    beta1: number;
    beta2: number;
    weightDecay: number;
    grads: { w: number[][]; b: number[] }[];
    w_after: number[][];
    b_after: number[];
  };
  const w = tf.variable(tf.tensor2d(c.w), true, "adamw_test_w");
  const b = tf.variable(tf.tensor1d(c.b), true, "adamw_test_b");
  const opt = createAdamW([w, b], { lr: c.lr, beta1: c.beta1, beta2: c.beta2, weightDecay: c.weightDecay });
  for (const g of c.grads) {
    const grads = { adamw_test_w: tf.tensor2d(g.w), adamw_test_b: tf.tensor1d(g.b) };
    opt.apply(grads);
    tf.dispose(Object.values(grads));
  }
  assert.equal(opt.stepCount, 4);
  assertAllClose(w, c.w_after, { rtol: 1e-5, atol: 1e-6 });
  assertAllClose(b, c.b_after, { rtol: 1e-5, atol: 1e-6 });
  const before = tf.memory().numTensors;
  opt.apply({ adamw_test_w: tf.zerosLike(w) });
  assert.ok(tf.memory().numTensors <= before + 1, "apply() leaks at most the caller's gradient");
  opt.dispose();
  const count = tf.memory().numTensors;
  createAdamW([w, b], { lr: 1 }).dispose();
  assert.equal(tf.memory().numTensors, count, "create + dispose leaves no tensor");
  tf.dispose([w, b]);
  assert.throws(() => createAdamW([], { lr: -1 }), /need lr ≥ 0/);
});
