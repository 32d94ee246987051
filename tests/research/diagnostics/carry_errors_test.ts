import assert from "node:assert/strict";
import { buildData, loadData } from "../../../lib/data/build.ts";
import { decode } from "../../../lib/text/tokenizer.ts";
import { teacherDemonstrations } from "../../../lib/train/demos.ts";
import { modelPreset } from "../../../lib/model/config.ts";
import { createModel } from "../../../lib/model/params.ts";
import { stepAccuracy } from "../../../research/diagnostics/step_diagnostic.ts";
import { CARRY_OUTCOMES, carryErrors, carryRecords } from "../../../research/diagnostics/carry_errors.ts";
import { parseStateMemory } from "../../../lib/env/teacher.ts";

Deno.test("carryErrors(): one outcome per carried answer of state-relations-bare teacher turns (3 objectives), and as many right as stepAccuracy counts", async () => {
  const dir = await Deno.makeTempDir();
  await buildData(dir, 8, { trainCount: 4, testCount: 5, testObjectives: [3], distinctAnswers: true });
  const data = await loadData(dir);
  const { sequences, episodes } = await teacherDemonstrations(data, {
    count: 5,
    dropProbability: 0,
    seed: 0,
    policies: ["memory"],
    records: data.test.get(3)!,
    memory: "state-relations-bare",
  });
  // the carried answers, counted off the teacher's memories: each turn copies every answer of the one before
  let carried = 0;
  for (const e of episodes) {
    const memories = e.turns.map((t) => {
      const w = decode(data.tokenizer, t.sampled).split(" ");
      return parseStateMemory(w.slice(0, w.indexOf("</mem>")));
    });
    for (let t = 1; t < memories.length; t++) carried += memories[t - 1]!.answers.length;
  }
  assert.ok(carried >= 10, `${carried} carried answers`);
  const model = createModel(modelPreset("tiny", data.tokenizer.size), { seed: 5 });
  try {
    const counts = await carryErrors(model, data.tokenizer, sequences);
    assert.deepEqual(Object.keys(counts), [...CARRY_OUTCOMES]);
    assert.equal(Object.values(counts).reduce((a, b) => a + b, 0), carried);
    const cells = await stepAccuracy(model, data.tokenizer, sequences);
    const step = cells.find((c) => c.step === "answers carried")!;
    assert.deepEqual([counts.right, carried], [step.correct, step.total]);
    // one appended answer per objective, written when its last hop is read
    const appended = await carryErrors(model, data.tokenizer, sequences, { step: "answer appended" });
    const cell = cells.find((c) => c.step === "answer appended")!;
    assert.deepEqual([appended.right, Object.values(appended).reduce((a, b) => a + b, 0)], [cell.correct, 5 * 3]);
    // the first objective's answer extends an empty list, the second's a list of one, the third's a list of two, in
    // each of the 5 episodes
    const all = await carryRecords(model, data.tokenizer, sequences);
    const records = all.filter((r) => r.step === "answer appended");
    assert.deepEqual(records.map((r) => r.listLength).sort(), [0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2]);
    assert.equal(records.filter((r) => r.outcome === "right").length, appended.right);
    // each appended answer is read from a fact of the last results, of the relation its last hop asks
    assert.ok(records.every((r) => r.relation !== ""), JSON.stringify(records));
    // one next hop's entity per first hop (the head rewritten), read from a document that states it with its relation
    const nextHops = all.filter((r) => r.step === "next hop read");
    const firstHops = episodes.reduce((n, e) => n + e.task.subQuestions!.reduce((m, q) => m + q.hops.length - 1, 0), 0);
    assert.ok(firstHops >= 3, `${firstHops} first hops`);
    assert.equal(nextHops.length, firstHops);
    for (const r of nextHops) assert.ok(r.relation !== "", JSON.stringify(r));
    // ruling out `|` changes the prediction only where it was `|`
    for (const r of all) {
      if (r.outcome === "right") assert.ok(r.rightWithoutEnd);
      else if (r.outcome !== "list ended (|)") assert.ok(!r.rightWithoutEnd, r.outcome);
    }
  } finally {
    model.dispose();
  }
});
