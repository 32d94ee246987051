import { tf } from "../../lib/tf.ts";
import { tokenEntropy } from "../../lib/tensor/entropy.ts";
import { assertAllClose } from "../../lib/testing/all_close.ts";
import { assertNoTensorLeak, onBackends, parityBackends, torchReference } from "../_helpers.ts";

interface Case {
  logits: number[][][];
  weights: number[][];
  expected: number[][];
  gradLogits: number[][][];
}

Deno.test("tokenEntropy() equals verl's entropy_from_logits and its gradient (PyTorch golden case)", async () => {
  const c = (await torchReference()).tokenEntropy as Case;
  const x = tf.tensor3d(c.logits);
  assertAllClose(tokenEntropy(x), c.expected);
  const g = tf.grad((v: tf.Tensor) => tf.sum(tf.mul(tokenEntropy(v), tf.tensor2d(c.weights))))(x);
  assertAllClose(g, c.gradLogits, { atol: 1e-5 });
});

Deno.test("tokenEntropy() hand values, no leaks; agrees across backends", async () => {
  // p = (1/2, 1/4, 1/4) → H = 1.5 ln 2
  const logits = [[[Math.log(2), 0, 0]]];
  const results = await onBackends(
    await parityBackends(),
    () => tf.tidy(() => ({ h: tokenEntropy(tf.tensor3d(logits)) })),
  );
  for (const [name, r] of results) assertAllClose(r.h, [[1.5 * Math.LN2]], { msg: name });
  assertNoTensorLeak(() => tf.tidy(() => tokenEntropy(tf.tensor3d(logits))));
});
