import assert from "node:assert/strict";
import { buildData, loadData, type LoadedData } from "../../lib/data/build.ts";
import { createTeacher } from "../../lib/env/teacher.ts";
import { type Episode, runEpisodes } from "../../lib/env/rollout.ts";
import { tasksFromRecords } from "../../lib/train/demos.ts";
import { keptFacts, memoryDecisions } from "../../lib/eval/kept_facts.ts";

const SIZES = { countries: 4, cities: 12, people: 30, companies: 6, films: 6, distractors: 0, lives: 1 };

/** A small world with decoys, its 3-objective test set, and the teacher's episodes at a drop probability. */
export async function decoyEpisodes(): Promise<{ data: LoadedData; run: (drop: number) => Promise<Episode[]> }> {
  const dir = await Deno.makeTempDir();
  await buildData(dir, 0, {
    sizes: SIZES,
    trainCount: 8,
    testCount: 12,
    testObjectives: [3],
    trainObjectives: 1,
    distinctAnswers: true,
  });
  const data = await loadData(dir);
  const tasks = tasksFromRecords(data.test.get(3)!);
  const run = async (dropProbability: number) =>
    await runEpisodes(
      createTeacher(data.tokenizer, { memory: "state-relations-bare", dropProbability }),
      tasks,
      data,
      { contextPolicy: "memory", maxTurns: 12 },
    );
  return { data, run };
}

Deno.test("keptFacts: the teacher's final memory holds every needed fact without drops, every decoy with all", async () => {
  const { data, run } = await decoyEpisodes();
  const decisions = tasksFromRecords(data.test.get(3)!).flatMap((t) => memoryDecisions(t)).length;
  assert.ok(decisions > 0);
  assert.deepEqual(keptFacts(await run(0)), { decisions, needed: decisions, decoy: 0 });
  assert.deepEqual(keptFacts(await run(1)), { decisions, needed: 0, decoy: decisions });
  const half = keptFacts(await run(0.5));
  assert.equal(half.needed + half.decoy, decisions);
  assert.ok(half.needed > 0 && half.decoy > 0);
});
