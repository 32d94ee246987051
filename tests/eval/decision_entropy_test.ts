import assert from "node:assert/strict";
import { decisionEntropy, decisionEntropyRows, decisionPlaces } from "../../lib/eval/decision_entropy.ts";
import { memoryDecisions } from "../../lib/eval/kept_facts.ts";
import { createModel } from "../../lib/model/params.ts";
import { modelPreset } from "../../lib/model/config.ts";
import { decoyEpisodes } from "./kept_facts_test.ts";

Deno.test("decisionEntropy: one place per memory decision; an untrained policy is near-uniform at both", async () => {
  const { data, run } = await decoyEpisodes();
  const episodes = await run(0);
  const decisions = episodes.flatMap((e) => memoryDecisions(e.task)).length;
  const places = episodes.flatMap((e) => e.turns.flatMap((_, t) => decisionPlaces(e, t, data.tokenizer)));
  assert.equal(places.length, decisions);
  const model = createModel(modelPreset("tiny", data.tokenizer.size), { seed: 1 });
  const h = await decisionEntropy(model, episodes, data.tokenizer);
  assert.equal(h.decisions, decisions);
  const logV = Math.log(data.tokenizer.size);
  assert.ok(Math.abs(h.decision - logV) < 0.2 && Math.abs(h.rest - logV) < 0.2, JSON.stringify(h));
  // the rows: one per agent and test set, the same numbers along the teacher's own (drop-free) episodes
  const rows = await decisionEntropyRows([{ name: "SFT", model }], data, {
    questions: 12,
    maxTurnTokens: 64,
    memory: "state-relations-bare",
    dropProbability: 0,
    seed: 0,
  });
  assert.deepEqual(rows, [{ agent: "SFT", objectives: 3, ...h }]);
  model.dispose();
});
