import assert from "node:assert/strict";
import { tf } from "../../../lib/tf.ts";
import { buildTokenizer, encode } from "../../../lib/text/tokenizer.ts";
import { modelPreset } from "../../../lib/model/config.ts";
import { createModel } from "../../../lib/model/params.ts";
import { forwardLogits } from "../../../lib/model/transformer.ts";
import { probeHits, teacherForcedHits } from "../../../research/diagnostics/teacher_forced.ts";

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

Deno.test("teacherForcedHits() refuses a key at position 0 (no prefix) or past the end, before any forward; no tensor left", async () => {
  const tok = buildTokenizer(["a b c"]);
  const model = createModel(modelPreset("tiny", tok.size), { seed: 4 });
  const ids = encode(tok, "a b c").ids;
  const s = { tokens: ids, lossMask: ids.map(() => 1) };
  const before = tf.memory().numTensors;
  await assert.rejects(
    teacherForcedHits(model, tok, [{ s, keys: [[1, "x"]] }, { s, keys: [[0, "x"]] }]),
    /items\[1\] keys position 0, which must be an integer in \[1, 3\)/,
  );
  await assert.rejects(teacherForcedHits(model, tok, [{ s, keys: [[3, "x"]] }]), /position 3/);
  assert.deepEqual([...await teacherForcedHits(model, tok, [{ s, keys: [] }])], []);
  await teacherForcedHits(model, tok, [{ s, keys: [[2, "x"]] }]);
  assert.equal(tf.memory().numTensors, before, "fused weights, projection, batch and argmax all freed");
  model.dispose();
});

Deno.test("probeHits(): one pass gives each probe the hits of its own teacherForcedHits call", async () => {
  const tok = buildTokenizer(["a b c d e f g h"]);
  const model = createModel(modelPreset("tiny", tok.size), { seed: 5 });
  const sequences = ["a b c d e", "h g f", "a a b b c c d d"].map((t) => {
    const ids = encode(tok, t).ids;
    return { tokens: ids, lossMask: ids.map(() => 1) };
  });
  const even = (s: { tokens: readonly number[] }) =>
    s.tokens.flatMap((_, i) => (i > 0 && i % 2 === 0 ? [[i, `e${i % 4}`] as [number, string]] : []));
  const last = (s: { tokens: readonly number[] }) => [[s.tokens.length - 1, "last"] as [number, string]];
  const hits = await probeHits(model, tok, sequences, { even, last });
  assert.deepEqual(hits.even, await teacherForcedHits(model, tok, sequences.map((s) => ({ s, keys: even(s) }))));
  assert.deepEqual(hits.last, await teacherForcedHits(model, tok, sequences.map((s) => ({ s, keys: last(s) }))));
  assert.equal(hits.last.get("last")!.total, 3);
  await assert.rejects(probeHits(model, tok, sequences, { "a/b": last }), /probe names hold no "\/"/);
  model.dispose();
});
