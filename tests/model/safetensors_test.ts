import assert from "node:assert/strict";
import { decodeSafetensors, encodeSafetensors } from "../../lib/model/safetensors.ts";

Deno.test("encodeSafetensors() writes the standard layout (u64 header length, 8-aligned JSON, LE float32)", () => {
  const bytes = encodeSafetensors([
    { name: "a", shape: [2, 2], data: new Float32Array([1, 2, 3, 4]) },
    { name: "b", shape: [1], data: new Float32Array([-0.5]) },
  ]);
  const n = Number(new DataView(bytes.buffer).getBigUint64(0, true));
  assert.equal((8 + n) % 8, 0);
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + n)));
  assert.deepEqual(header.a, { dtype: "F32", shape: [2, 2], data_offsets: [0, 16] });
  assert.deepEqual(header.b, { dtype: "F32", shape: [1], data_offsets: [16, 20] });
  assert.equal(new DataView(bytes.buffer).getFloat32(8 + n + 16, true), -0.5);
  assert.equal(bytes.length, 8 + n + 20);
});

Deno.test("decodeSafetensors() refuses malformed input with a message naming the problem", () => {
  const good = encodeSafetensors([{ name: "w", shape: [3], data: new Float32Array([1, 2, 3]) }]);
  assert.deepEqual([...decodeSafetensors(good).tensors[0]!.data], [1, 2, 3]);
  assert.throws(() => decodeSafetensors(new Uint8Array(4), "x"), /x: too short/);
  const bad = good.slice();
  new DataView(bad.buffer).setBigUint64(0, 1n << 40n, true);
  assert.throws(() => decodeSafetensors(bad, "x"), /header length \d+ does not fit/);
  const garbage = good.slice();
  garbage[9] = 0x7b;
  garbage[10] = 0x7b;
  assert.throws(() => decodeSafetensors(garbage, "x"), /header is not valid JSON/);
  const f16 = new TextEncoder().encode(
    JSON.stringify({ w: { dtype: "F16", shape: [1], data_offsets: [0, 2] } }) + "      ",
  );
  const withF16 = new Uint8Array(8 + f16.length + 2);
  new DataView(withF16.buffer).setBigUint64(0, BigInt(f16.length), true);
  withF16.set(f16, 8);
  assert.throws(() => decodeSafetensors(withF16, "x"), /dtype F16; only F32/);
  assert.throws(
    () => encodeSafetensors([{ name: "w", shape: [2], data: new Float32Array(3) }]),
    /shape \[2\] has 2 values/,
  );
});
