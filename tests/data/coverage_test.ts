import assert from "node:assert/strict";
import { buildData, loadData } from "../../lib/data/build.ts";
import { unseenTestWords } from "../../lib/data/coverage.ts";

/** The default preset's shape (main world 1-2 objectives, auxiliary worlds 1-4, tests 1-8), small. */
async function defaultShapedData() {
  const dir = await Deno.makeTempDir();
  await buildData(dir, 3, {
    trainCount: 40,
    testCount: 3,
    trainObjectives: [1, 2],
    auxWorlds: 1,
    auxObjectives: [1, 2, 3, 4],
  });
  return await loadData(dir);
}

Deno.test("unseenTestWords(): with the default's shape every word of the 1-8-objective test questions is in training", async () => {
  const unseen = unseenTestWords(await defaultShapedData());
  assert.deepEqual([...unseen.keys()], [1, 2, 4, 6, 8]);
  assert.deepEqual([...unseen.values()], [[], [], [], [], []]);
});

Deno.test("unseenTestWords() finds the separator that 1-objective training questions never show (the quick preset's shape)", async () => {
  const dir = await Deno.makeTempDir();
  await buildData(dir, 3, { trainCount: 40, testCount: 3, trainObjectives: 1, testObjectives: [1, 2, 4] });
  const data = await loadData(dir);
  assert.ok(data.train.every((r) => !r.question.split(" ").includes(";")));
  assert.deepEqual([...unseenTestWords(data)], [[1, []], [2, [";"]], [4, [";"]]]);
});

Deno.test("unseenTestWords() leaves entity names aside: test subjects are never asked about in training", async () => {
  const dir = await Deno.makeTempDir();
  await buildData(dir, 4, { trainCount: 40, testCount: 3, trainObjectives: 2, testObjectives: [1, 2] });
  const data = await loadData(dir);
  const trainWords = new Set(data.train.flatMap((r) => r.question.split(" ")));
  const subjects = data.test.get(1)!.flatMap((r) => r.subQuestions!.map((q) => q.subject));
  assert.ok(subjects.some((s) => !trainWords.has(s)), "a test subject is absent from the training questions");
  assert.deepEqual(unseenTestWords(data).get(1), []);
  assert.deepEqual(unseenTestWords(data).get(2), []);
});
