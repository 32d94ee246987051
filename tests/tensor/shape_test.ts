import assert from "node:assert/strict";
import { tf } from "../../lib/tf.ts";
import { assertRank, assertSameShape } from "../../lib/tensor/shape.ts";

Deno.test("assertSameShape() and assertRank() name the argument and the shapes", () => {
  const a = tf.zeros([2, 3]);
  assert.doesNotThrow(() => assertSameShape(a, tf.zeros([2, 3]), "a", "b"));
  assert.throws(
    () => assertSameShape(a, tf.zeros([3]), "advantages", "mask"),
    (e: Error) =>
      e instanceof TypeError && /mask must have shape \[2, 3\] like advantages, current shape is \[3\]/.test(e.message),
  );
  assert.throws(() => assertRank(a, 3, "logits"), /logits must be rank 3 \(\[B, T, V\]\), current shape is \[2, 3\]/);
});
