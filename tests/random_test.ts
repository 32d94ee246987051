import assert from "node:assert/strict";
import { createRng, hashSeed, shuffled } from "../lib/random.ts";
import { assertAllClose } from "../lib/testing/all_close.ts";

Deno.test("createRng() is reproducible and uniform; normal() has mean 0 and variance 1", () => {
  const a = createRng(42);
  const b = createRng(42);
  const xs = Array.from({ length: 20000 }, () => a.next());
  assert.deepEqual(xs.slice(0, 5), Array.from({ length: 5 }, () => b.next()));
  assert.ok(xs.every((x) => x >= 0 && x < 1));
  assertAllClose(xs.reduce((s, x) => s + x) / xs.length, 0.5, { atol: 0.01 });
  const n = createRng(3);
  const zs = Array.from({ length: 20000 }, () => n.normal());
  const mean = zs.reduce((s, z) => s + z) / zs.length;
  assertAllClose(mean, 0, { atol: 0.03 });
  assertAllClose(zs.reduce((s, z) => s + (z - mean) ** 2, 0) / zs.length, 1, { atol: 0.05 });
  const ints = createRng(9);
  const counts = new Array(5).fill(0);
  for (let i = 0; i < 5000; i++) counts[ints.int(5)]++;
  assert.ok(counts.every((c) => c > 900 && c < 1100), `int(5) counts ${counts}`);
});

Deno.test("hashSeed() separates nearby tuples and shuffled() permutes", () => {
  const seen = new Set<number>();
  for (let s = 0; s < 20; s++) for (let e = 0; e < 20; e++) seen.add(hashSeed(7, s, e));
  assert.equal(seen.size, 400);
  const xs = Array.from({ length: 50 }, (_, i) => i);
  const p = shuffled(xs, createRng(1));
  assert.notDeepEqual(p, xs);
  assert.deepEqual([...p].sort((a, b) => a - b), xs);
  assert.deepEqual(shuffled(xs, createRng(1)), p);
});
