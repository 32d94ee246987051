import assert from "node:assert/strict";
import { buildData, loadData } from "../../lib/data/build.ts";
import { modelPreset } from "../../lib/model/config.ts";
import { createModel } from "../../lib/model/params.ts";
import { modelPolicy } from "../../lib/env/model_policy.ts";
import { runEpisodes } from "../../lib/env/rollout.ts";
import { scoreContinuations } from "../../lib/model/score.ts";
import { assertAllClose } from "../../lib/testing/all_close.ts";

Deno.test("an untrained model runs through the agent loop without crashing; old log-probs match rescoring", async () => {
  const dir = await Deno.makeTempDir();
  await buildData(dir, 10, { trainCount: 4, testCount: 1 });
  const data = await loadData(dir);
  const model = createModel(modelPreset("tiny", data.tokenizer.size), { seed: 1 });
  const policy = modelPolicy(model, { padId: data.tokenizer.padId, batchSize: 3 });
  const tasks = data.train.map((r, i) => ({ question: r.question, targets: r.targets, groupId: i }));
  const eps = await runEpisodes(policy, tasks, data, { contextPolicy: "memory", maxTurnTokens: 12, seed: 3 });
  assert.equal(eps.length, 4);
  for (const e of eps) {
    assert.equal(e.done, true);
    assert.equal(e.reward, 0);
    const t = e.turns[0]!;
    const [scored] = await scoreContinuations(model, [{ context: t.context, continuation: t.sampled }], {
      padId: data.tokenizer.padId,
    });
    assertAllClose(t.logProbs, scored!, { rtol: 1e-4, atol: 1e-4 });
  }
  const again = await runEpisodes(policy, tasks, data, { contextPolicy: "memory", maxTurnTokens: 12, seed: 3 });
  assert.deepEqual(again.map((e) => e.turns.map((t) => t.sampled)), eps.map((e) => e.turns.map((t) => t.sampled)));
  model.dispose();
});

Deno.test("modelPolicy() with a generator: the same batches and seeds, all at once, so the same turns", async () => {
  const { generate } = await import("../../lib/model/generate.ts");
  const model = createModel(modelPreset("tiny", 30), { seed: 2 });
  const requests = [3, 5, 2, 6, 4].map((n, i) => ({
    context: Array.from({ length: n }, (_, j) => 1 + ((i * 7 + j) % 29)),
    episode: {} as never,
  }));
  const options = { maxNewTokens: 5, stopIds: [4], seed: 9 };
  const calls: { rows: number; seed: number }[] = [];
  let running = 0;
  let most = 0;
  const generator: Parameters<typeof modelPolicy>[1]["generator"] = async (prompts, o) => {
    calls.push({ rows: prompts.length, seed: o.seed! });
    most = Math.max(most, ++running);
    await new Promise((r) => setTimeout(r, 5)); // a worker's round trip
    const out = await generate(model, prompts, o);
    running -= 1;
    return out;
  };
  const here = await modelPolicy(model, { padId: 0, batchSize: 2 }).nextTurns(requests, options);
  const there = await modelPolicy(model, { padId: 0, batchSize: 2, generator }).nextTurns(requests, options);
  assert.deepEqual(there, here);
  // batches of at most 2 rows in request order, each seeded by its first row's place
  assert.deepEqual(calls, [{ rows: 2, seed: 9 }, { rows: 2, seed: 11 }, { rows: 1, seed: 13 }]);
  assert.equal(most, 3, "the turn's batches run at once");
  model.dispose();
});
