import assert from "node:assert/strict";
import { tf } from "../../lib/tf.ts";
import { modelPreset } from "../../lib/model/config.ts";
import { createModel } from "../../lib/model/params.ts";
import { generate } from "../../lib/model/generate.ts";
import { scoreContinuations } from "../../lib/model/score.ts";
import { forwardLogits } from "../../lib/model/transformer.ts";
import { assertAllClose } from "../../lib/testing/all_close.ts";

Deno.test("generate() is reproducible per seed and its log-probs equal a full recomputation", async () => {
  const m = createModel(modelPreset("tiny", 25), { seed: 11 });
  const prompts = [[3, 4, 5, 6, 7], [8, 9], [10, 11, 12]];
  const opts = { maxNewTokens: 6, temperature: 1, padId: 0, seed: 42 };
  const a = await generate(m, prompts, opts);
  const b = await generate(m, prompts, opts);
  assert.deepEqual(a.tokens, b.tokens);
  const c = await generate(m, prompts, { ...opts, seed: 43 });
  assert.notDeepEqual(a.tokens, c.tokens);
  // the sampler's log-probs (KV cache, left padding) equal teacher-forced scoring of each row alone
  const scored = await scoreContinuations(m, prompts.map((p, i) => ({ context: p, continuation: a.tokens[i]! })), {
    padId: 0,
  });
  a.logProbs.forEach((row, i) => assertAllClose(row, scored[i]!, { rtol: 1e-4, atol: 1e-4, msg: `row ${i}` }));
  m.dispose();
});

Deno.test("generate() greedy picks the argmax of the full-forward logits at every step", async () => {
  const m = createModel(modelPreset("tiny", 25), { seed: 12 });
  const prompt = [1, 2, 3];
  const { tokens } = await generate(m, [prompt, [4, 5, 6, 7, 8, 9]], { maxNewTokens: 4, temperature: 0, padId: 0 });
  const seq = [...prompt];
  for (let k = 0; k < 4; k++) {
    const logits = forwardLogits(m, tf.tensor2d([seq], undefined, "int32"));
    const last = (logits.arraySync() as number[][][])[0]!.at(-1)!;
    logits.dispose();
    const argmax = last.indexOf(Math.max(...last));
    assert.equal(tokens[0]![k], argmax, `step ${k}`);
    seq.push(argmax);
  }
  m.dispose();
});

Deno.test("generate() stops rows at stop ids, keeps top-p within the nucleus, and does not leak", async () => {
  const m = createModel(modelPreset("tiny", 25), { seed: 13 });
  const free = await generate(m, [[1, 2]], { maxNewTokens: 8, padId: 0, seed: 1 });
  const stopId = free.tokens[0]![2]!;
  const stopped = await generate(m, [[1, 2]], { maxNewTokens: 8, padId: 0, seed: 1, stopIds: [stopId] });
  const firstStop = free.tokens[0]!.indexOf(stopId);
  assert.deepEqual(stopped.tokens[0], free.tokens[0]!.slice(0, firstStop + 1));
  assert.equal(stopped.stopped[0], true);
  // top-p tiny: only the most likely token can be sampled
  const greedy = await generate(m, [[1, 2]], { maxNewTokens: 5, temperature: 0, padId: 0 });
  const nucleus = await generate(m, [[1, 2]], { maxNewTokens: 5, topP: 1e-6, padId: 0, seed: 9 });
  assert.deepEqual(nucleus.tokens, greedy.tokens);
  const before = tf.memory().numTensors;
  await generate(m, [[1, 2], [3]], { maxNewTokens: 5, padId: 0, seed: 2 });
  assert.equal(tf.memory().numTensors, before);
  await assert.rejects(generate(m, [[1]], { maxNewTokens: 600, padId: 0 }), /exceeds maxPositions 512/);
  await assert.rejects(generate(m, [[]], { maxNewTokens: 1, padId: 0 }), /prompts\[0\] is empty/);
  m.dispose();
});

Deno.test("generate(): a forward that throws leaves no tensor behind (fused weights, prefill inputs, cache)", async () => {
  const m = createModel(modelPreset("tiny", 25), { seed: 11 });
  await generate(m, [[3, 4, 5], [6]], { maxNewTokens: 3, temperature: 0, padId: 0 }); // kernels' one-time setup
  const norm = m.weights.get("model.norm.weight")!;
  m.weights.delete("model.norm.weight"); // the prefill's last step throws, after its inputs and the fused weights exist
  const before = tf.memory().numTensors;
  await assert.rejects(
    generate(m, [[3, 4, 5], [6]], { maxNewTokens: 3, temperature: 0, padId: 0 }),
    /has no weight model\.norm\.weight/,
  );
  assert.equal(tf.memory().numTensors, before);
  m.weights.set("model.norm.weight", norm);
  const ok = await generate(m, [[3, 4, 5], [6]], { maxNewTokens: 3, temperature: 0, padId: 0 });
  assert.equal(tf.memory().numTensors, before, "and a whole call frees everything it made");
  assert.equal(ok.tokens[0]!.length, 3);
  m.dispose();
});
