import assert from "node:assert/strict";
import { tf } from "../../lib/tf.ts";
import { bmm, bmmTransposed, dense } from "../../lib/model/dense.ts";
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

Deno.test("bmmTransposed(a, b) equals bmm(a, bᵀ) bit for bit in value and both gradients (one batched product, 2-D pieces; 1 and 2 threads), and tf.matMul on cpu", async () => {
  const { setBackend, wasmThreads } = await import("../../lib/backend.ts");
  const before = wasmThreads();
  const bits = (t: tf.Tensor) => Array.from(t.dataSync());
  try {
    for (const threads of [1, 2]) {
      await setBackend("wasm", { threads });
      // attention's shapes: [B·H, T, hd] queries and keys; the first below MIN_PIECE_PRODUCT, the others above
      for (const [N, T, K, S] of [[3, 8, 32, 8], [2, 64, 32, 64], [4, 256, 32, 256]]) {
        const a = tf.randomNormal([N!, T!, K!], 0, 1, "float32", 7) as tf.Tensor3D;
        const b = tf.randomNormal([N!, S!, K!], 0, 1, "float32", 8) as tf.Tensor3D;
        const w = tf.randomNormal([N!, T!, S!], 0, 1, "float32", 9);
        // a loss whose gradient is not the output itself (a weighted sum of squares)
        const loss = (f: (x: tf.Tensor3D, y: tf.Tensor3D) => tf.Tensor) => (u: tf.Tensor, v: tf.Tensor) =>
          tf.sum(tf.mul(w, tf.square(f(u as tf.Tensor3D, v as tf.Tensor3D))));
        const viaBmm = (x: tf.Tensor3D, y: tf.Tensor3D) => bmm(x, tf.transpose(y, [0, 2, 1]) as tf.Tensor3D);
        const y1 = bmmTransposed(a, b);
        const y0 = viaBmm(a, b);
        const [ga, gb] = tf.grads(loss(bmmTransposed))([a, b]);
        const [ra, rb] = tf.grads(loss(viaBmm))([a, b]);
        const at = `[${N}, ${T}, ${K}] · [${N}, ${S}, ${K}]ᵀ on ${threads} thread(s)`;
        assert.deepEqual(bits(y1), bits(y0), `value, ${at}`);
        assert.deepEqual(bits(ga!), bits(ra!), `gradient of a, ${at}`);
        assert.deepEqual(bits(gb!), bits(rb!), `gradient of b, ${at}`);
        assertAllClose(y1, tf.matMul(a, b, false, true), { rtol: 1e-5, atol: 1e-4, msg: at });
        tf.dispose([a, b, w, y0, y1, ga!, gb!, ra!, rb!]);
      }
    }
  } finally {
    await setBackend("wasm", { threads: before });
  }
  const results = await onBackends(["cpu"], () =>
    tf.tidy(() => {
      const a = tf.randomNormal([2, 3, 4], 0, 1, "float32", 1) as tf.Tensor3D;
      const b = tf.randomNormal([2, 5, 4], 0, 1, "float32", 2) as tf.Tensor3D;
      const [ga, gb] = tf.grads((u: tf.Tensor, v: tf.Tensor) =>
        tf.sum(tf.square(bmmTransposed(u as tf.Tensor3D, v as tf.Tensor3D)))
      )([a, b]);
      const [ra, rb] = tf.grads((u: tf.Tensor, v: tf.Tensor) =>
        tf.sum(tf.square(tf.matMul(u as tf.Tensor3D, v as tf.Tensor3D, false, true)))
      )([a, b]);
      return { ga: ga!, ra: ra!, gb: gb!, rb: rb! };
    }));
  const cpu = results.get("cpu")!;
  assertAllClose(cpu.ga, cpu.ra, { rtol: 1e-5, atol: 1e-5, msg: "cpu, gradient of a" });
  assertAllClose(cpu.gb, cpu.rb, { rtol: 1e-5, atol: 1e-5, msg: "cpu, gradient of b" });
});
