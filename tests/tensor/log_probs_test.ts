import assert from "node:assert/strict";
import { tf } from "../../lib/tf.ts";
import { tokenLogProbs } from "../../lib/tensor/log_probs.ts";
import { assertAllClose } from "../../lib/testing/all_close.ts";
import { assertNoTensorLeak, onBackends, parityBackends, torchReference } from "../_helpers.ts";

interface Case {
  logits: number[][][];
  targets: number[][];
  weights: number[][];
  expected: number[][];
  gradLogits: number[][][];
}

Deno.test("tokenLogProbs() equals log_softmax().gather() and its gradient (PyTorch golden case)", async () => {
  const c = (await torchReference()).tokenLogProbs as Case;
  const logits = tf.tensor3d(c.logits);
  assertAllClose(tokenLogProbs(logits, c.targets), c.expected);
  const g = tf.grad((x: tf.Tensor) => tf.sum(tf.mul(tokenLogProbs(x, c.targets), tf.tensor2d(c.weights))))(logits);
  assertAllClose(g, c.gradLogits);
});

Deno.test("tokenLogProbs() is stable for ±1000 logits and accepts int tensors", () => {
  const logits = tf.tensor3d([[[1000, -1000, 0], [-1000, 1000, 1000]]]);
  assertAllClose(tokenLogProbs(logits, tf.tensor2d([[0, 2]], undefined, "int32")), [[0, -Math.LN2]], { atol: 1e-5 });
  assert.throws(() => tokenLogProbs(logits, [[0]]), /targets must have shape \[1, 2\] to match logits \[1, 2, 3\]/);
});

Deno.test("tokenLogProbs() and its gather gradient: no leaks; agree across backends", async () => {
  const c = (await torchReference()).tokenLogProbs as Case;
  const results = await onBackends(await parityBackends(), () =>
    tf.tidy(() => {
      const x = tf.tensor3d(c.logits);
      const f = (v: tf.Tensor) => tf.sum(tf.mul(tokenLogProbs(v, c.targets), tf.tensor2d(c.weights)));
      return { value: tokenLogProbs(x, c.targets), grad: tf.grad(f)(x) };
    }));
  for (const [name, r] of results) {
    assertAllClose(r.value, c.expected, { msg: name });
    assertAllClose(r.grad, c.gradLogits, { msg: name });
  }
  assertNoTensorLeak(() => tf.tidy(() => tokenLogProbs(tf.tensor3d(c.logits), c.targets)));
});
