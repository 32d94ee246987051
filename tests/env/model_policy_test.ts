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
