import assert from "node:assert/strict";
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

Deno.test("bmm() on both sides of MIN_PIECE_PRODUCT (one batched product, 2-D pieces) equals tf.matMul in value and gradient", async () => {
  const { MIN_PIECE_PRODUCT } = await import("../../lib/model/dense.ts");
  for (const [N, M, K, P] of [[3, 8, 32, 8], [2, 64, 32, 64]]) {
    const product = M! * K! * P!;
    assert.equal(product >= MIN_PIECE_PRODUCT, N === 2, `${[M, K, P]}: the case meant for each path`);
    const a = tf.randomNormal([N!, M!, K!], 0, 1, "float32", 5) as tf.Tensor3D;
    const b = tf.randomNormal([N!, K!, P!], 0, 1, "float32", 6) as tf.Tensor3D;
    const loss = (f: (x: tf.Tensor3D, y: tf.Tensor3D) => tf.Tensor) => (u: tf.Tensor, v: tf.Tensor) =>
      tf.sum(tf.square(f(u as tf.Tensor3D, v as tf.Tensor3D)));
    const [ga, gb] = tf.grads(loss(bmm))([a, b]);
    const [ra, rb] = tf.grads(loss((x, y) => tf.matMul(x, y)))([a, b]);
    assertAllClose(bmm(a, b), tf.matMul(a, b), { rtol: 1e-5, atol: 1e-4 });
    assertAllClose(ga!, ra!, { rtol: 1e-5, atol: 1e-3 });
    assertAllClose(gb!, rb!, { rtol: 1e-5, atol: 1e-3 });
    tf.dispose([a, b, ga!, gb!, ra!, rb!]);
  }
});
