import { tf } from "../../lib/tf.ts";
import { stopGradient } from "../../lib/tensor/stop_gradient.ts";
import { assertAllClose } from "../../lib/testing/all_close.ts";
import { assertNoTensorLeak } from "../_helpers.ts";

Deno.test("stopGradient() passes values and blocks gradients", () => {
  const x = tf.tensor1d([1, -2, 3]);
  assertAllClose(stopGradient(x), [1, -2, 3]);
  const g = tf.grad((v: tf.Tensor) => tf.sum(tf.add(tf.square(v), stopGradient(tf.square(v)))))(x);
  assertAllClose(g, [2, -4, 6]);
  assertNoTensorLeak(() => tf.tidy(() => tf.grad((v: tf.Tensor) => tf.sum(stopGradient(v)))(x)));
});
