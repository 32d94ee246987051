import { tf } from "../../lib/tf.ts";
import { bmm, dense } from "../../lib/model/dense.ts";
import { assertAllClose } from "../../lib/testing/all_close.ts";
import { onBackends } from "../_helpers.ts";

Deno.test("dense() and bmm() equal tf.matMul in value and gradient on wasm and cpu", async () => {
  const results = await onBackends(["wasm", "cpu"], () =>
    tf.tidy(() => {
      const x = tf.randomNormal([2, 3, 4], 0, 1, "float32", 1);
      const w = tf.randomNormal([4, 5], 0, 1, "float32", 2) as tf.Tensor2D;
      const a = tf.randomNormal([3, 4, 6], 0, 1, "float32", 3) as tf.Tensor3D;
      const b = tf.randomNormal([3, 6, 2], 0, 1, "float32", 4) as tf.Tensor3D;
      const [gx, gw] = tf.grads((u: tf.Tensor, v: tf.Tensor) => tf.sum(tf.square(dense(u, v as tf.Tensor2D))))([x, w]);
      const [rx, rw] = tf.grads((u: tf.Tensor, v: tf.Tensor) => tf.sum(tf.square(tf.matMul(u.reshape([6, 4]), v))))([
        x,
        w,
      ]);
      const [ga, gb] = tf.grads((u: tf.Tensor, v: tf.Tensor) =>
        tf.sum(tf.square(bmm(u as tf.Tensor3D, v as tf.Tensor3D)))
      )([a, b]);
      const [ra, rb] = tf.grads((u: tf.Tensor, v: tf.Tensor) =>
        tf.sum(tf.square(tf.matMul(u as tf.Tensor3D, v as tf.Tensor3D)))
      )([a, b]);
      return {
        y: dense(x, w),
        yRef: tf.matMul(x.reshape([6, 4]), w).reshape([2, 3, 5]),
        z: bmm(a, b),
        zRef: tf.matMul(a, b),
        gx,
        rx: rx!,
        gw,
        rw: rw!,
        ga,
        ra: ra!,
        gb,
        rb: rb!,
      } as Record<string, tf.Tensor>;
    }));
  for (const [name, r] of results) {
    for (
      const [a, b] of <[string, string][]> [["y", "yRef"], ["z", "zRef"], ["gx", "rx"], ["gw", "rw"], ["ga", "ra"], [
        "gb",
        "rb",
      ]]
    ) {
      assertAllClose(r[a]!, r[b]!, { rtol: 1e-5, atol: 1e-5, msg: `${name} ${a}` });
    }
  }
});
