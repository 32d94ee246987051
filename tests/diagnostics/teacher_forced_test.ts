import assert from "node:assert/strict";
import { tf } from "../../lib/tf.ts";
import { buildTokenizer, encode } from "../../lib/text/tokenizer.ts";
import { modelPreset } from "../../lib/model/config.ts";
import { createModel } from "../../lib/model/params.ts";
import { forwardLogits } from "../../lib/model/transformer.ts";
import { teacherForcedHits } from "../../lib/diagnostics/teacher_forced.ts";

Deno.test("teacherForcedHits() counts, per key, the positions whose greedy prediction is the next token (slow per-sequence loop)", async () => {
  const tok = buildTokenizer(["a b c d e f g h"]);
  const model = createModel(modelPreset("tiny", tok.size), { seed: 4 });
  const texts = ["a b c d e", "h g f", "a a b b c c d d"];
  const items = texts.map((t, n) => {
    const ids = encode(tok, t).ids;
    return {
      s: { tokens: ids, lossMask: ids.map(() => 1) },
      keys: ids.slice(1).map((_, j) => [j + 1, `${n % 2}/${j % 3}`] as [number, string]),
    };
  });
  const hits = await teacherForcedHits(model, tok, items);
  // the slow reference: one forward per sequence, unpadded
  const want = new Map<string, { correct: number; total: number }>();
  for (const { s, keys } of items) {
    const logits = forwardLogits(model, tf.tensor2d([s.tokens.slice(0, -1)], undefined, "int32"));
    const argmax = (await tf.argMax(logits, -1).array() as number[][])[0]!;
    logits.dispose();
    for (const [i, key] of keys) {
      const h = want.get(key) ?? { correct: 0, total: 0 };
      h.correct += argmax[i - 1] === s.tokens[i] ? 1 : 0;
      h.total += 1;
      want.set(key, h);
    }
  }
  assert.deepEqual(Object.fromEntries([...hits].sort()), Object.fromEntries([...want].sort()));
  assert.equal([...hits.values()].reduce((a, h) => a + h.total, 0), 4 + 2 + 7);
  model.dispose();
});
