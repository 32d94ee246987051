import assert from "node:assert/strict";
import { isDeepStrictEqual } from "node:util";
import { tf } from "../../lib/tf.ts";
import { buildData, loadData } from "../../lib/data/build.ts";
import { modelPreset } from "../../lib/model/config.ts";
import { createModel } from "../../lib/model/params.ts";
import { type AgentSpec, evaluateAgents } from "../../lib/eval/evaluate.ts";
import { createEvalWorkers, evalWorkersFromEnv } from "../../lib/eval/eval_workers.ts";
import { equalRewardGroups } from "../../lib/eval/equal_reward_groups.ts";
import { createTeacher } from "../../lib/env/teacher.ts";
import type { EpisodeRecord } from "../../lib/episodes/episode_record.ts";
import { firstSeed } from "../_helpers.ts";

const dir = await Deno.makeTempDir();
await buildData(dir, 15, { trainCount: 2, testCount: 3, testObjectives: [1, 2, 4] });
const data = await loadData(dir);
const config = { questions: 3, maxTurns: 3, maxTurnTokens: 12 };

Deno.test("createEvalWorkers(): the rows of evaluateAgents and equalRewardGroups, bit for bit and in their order, with two models and the teacher", async () => {
  const a = createModel(modelPreset("tiny", data.tokenizer.size), { seed: 1 });
  const b = createModel(modelPreset("tiny", data.tokenizer.size), { seed: 2 });
  // large random MLP outputs make b decode other tokens than a (an untrained tied embedding repeats its prompt's
  // last token): the first seed whose memory transcript differs from a's, so a cell run with the wrong weights shows
  const memorySample = async (model: typeof a) =>
    (await evaluateAgents([{ name: "x", model, contextPolicy: "memory" }], data, config))[0]!.sample;
  const sampleA = await memorySample(a);
  await firstSeed(
    6,
    30,
    async (seed) => {
      for (const name of ["model.layers.0.mlp.down_proj.weight", "model.layers.1.mlp.down_proj.weight"]) {
        const v = b.weights.get(name)!;
        const noise = tf.randomNormal(v.shape, 0, 1, "float32", seed);
        v.assign(noise);
        noise.dispose();
      }
      return await memorySample(b);
    },
    (sampleB) => !isDeepStrictEqual(sampleB, sampleA),
    "b a transcript other than a's",
  );
  const teacher = createTeacher(data.tokenizer, { dropProbability: 0 });
  const agents: AgentSpec[] = [
    { name: "Teacher", policy: teacher, maxPositions: 512, contextPolicy: "memory" },
    { name: "A", model: a, contextPolicy: "full" },
    { name: "A", model: a, contextPolicy: "memory" },
    { name: "B", model: b, contextPolicy: "memory" },
  ];
  const groupOptions = { questions: 2, groupSize: 3, temperature: 1, maxTurns: 3, maxTurnTokens: 12, seed: 4 };
  const reference = await evaluateAgents(agents, data, config);
  const referenceGroups = await equalRewardGroups(agents, data, groupOptions);
  const cellsOf = (rows: readonly { agent: string; contextPolicy: string; objectives: number }[]) =>
    rows.map((r) => `${r.agent}/${r.contextPolicy}/${r.objectives}`);
  for (const size of [1, 2, 5]) {
    const workers = createEvalWorkers(data, dir, [b, a], size);
    try {
      const seen: { agent: string; contextPolicy: string; objectives: number }[] = [];
      const rows = await workers.evaluate(agents, config, (r) => {
        seen.push(r);
      });
      assert.deepEqual(rows, reference, `${size} workers`);
      assert.deepEqual(cellsOf(seen).toSorted(), cellsOf(reference).toSorted(), "onRow once per cell");
      // some test sets only: those sets' rows, as the evaluation of all gives them
      assert.deepEqual(
        await workers.evaluate(agents, config, undefined, [4, 1]),
        reference.filter((r) => r.objectives !== 2),
        `${size} workers, objectives 1 and 4`,
      );
      await assert.rejects(
        workers.evaluate(agents, config, undefined, [3]),
        /objectives must be among the test sets \(1,2,4\), current value is 3/,
      );
      // the same workers sample the groups: each cell's own seed stream, whichever worker runs it
      assert.deepEqual(await workers.equalRewardGroups(agents, groupOptions), referenceGroups, `${size} workers`);
    } finally {
      workers.close();
    }
  }
  // the two models' transcripts differ, so a cell run with the other model's weights would show
  const sample = (name: string) => reference.find((r) => r.agent === name && r.contextPolicy === "memory")!.sample;
  assert.notDeepEqual(sample("A"), sample("B"));
  assert.deepEqual(cellsOf(reference.slice(0, 3)), ["Teacher/memory/1", "Teacher/memory/2", "Teacher/memory/4"]);
  assert.ok(reference.every((r) => r.episodes === 3), "every cell ran its 3 questions");
  a.dispose();
  b.dispose();
});

Deno.test("createEvalWorkers(): refuses a data directory with other test sets, a model it was not given, a bad size", async () => {
  const other = await Deno.makeTempDir();
  await buildData(other, 16, { trainCount: 2, testCount: 3, testObjectives: [1, 2, 4] });
  const m = createModel(modelPreset("tiny", data.tokenizer.size), { seed: 1 });
  const agents: AgentSpec[] = [{ name: "A", model: m, contextPolicy: "memory" }];
  const wrong = createEvalWorkers(data, other, [m], 2);
  await assert.rejects(
    wrong.evaluate(agents, config),
    /An eval worker failed: The test sets in .* are not the ones being evaluated/,
  );
  wrong.close();
  const stranger = createModel(modelPreset("tiny", data.tokenizer.size), { seed: 3 });
  const workers = createEvalWorkers(data, dir, [m], 2);
  await assert.rejects(
    workers.evaluate([{ name: "C", model: stranger, contextPolicy: "memory" }], config),
    /Cannot evaluate C: its model is not one the eval workers were given/,
  );
  workers.close();
  await assert.rejects(workers.evaluate(agents, config), /the eval workers are closed/);
  assert.throws(() => createEvalWorkers(data, dir, [m], 0), /size must be an integer ≥ 1, current value is 0/);
  assert.throws(() => evalWorkersFromEnv("-1"), /MEMPO_EVAL_WORKERS must be an integer ≥ 0, current value is "-1"/);
  assert.equal(evalWorkersFromEnv("1"), 1);
  stranger.dispose();
  m.dispose();
});

Deno.test("createEvalWorkers(): the validation and train splits of a data directory, as evaluateAgents gives them", async () => {
  const splitDir = await Deno.makeTempDir();
  await buildData(splitDir, 15, { trainCount: 2, testCount: 2, testObjectives: [1, 2], validCount: 2 });
  const valid = await loadData(splitDir, { split: "valid" });
  const m = createModel(modelPreset("tiny", valid.tokenizer.size), { seed: 1 });
  const agents: AgentSpec[] = [
    {
      name: "Teacher",
      policy: createTeacher(valid.tokenizer, { dropProbability: 0 }),
      maxPositions: 512,
      contextPolicy: "memory",
    },
    { name: "A", model: m, contextPolicy: "memory" },
  ];
  const cfg = { questions: 2, maxTurns: 3, maxTurnTokens: 12 };
  const reference = await evaluateAgents(agents, valid, cfg);
  // the workers load the caller's split (one that loaded the test sets would refuse: its fingerprint differs)
  const workers = createEvalWorkers(valid, splitDir, [m], 2);
  try {
    assert.deepEqual(await workers.evaluate(agents, cfg), reference);
  } finally {
    workers.close();
  }
  // the train split's sets, built when loaded: the workers build the same
  const fit = await loadData(splitDir, { split: "train" });
  const fitWorkers = createEvalWorkers(fit, splitDir, [m], 1);
  try {
    assert.deepEqual(await fitWorkers.evaluate(agents.slice(1), cfg), await evaluateAgents(agents.slice(1), fit, cfg));
  } finally {
    fitWorkers.close();
  }
  // data whose split is not the one the workers load: refused
  const mislabelled = createEvalWorkers({ ...valid, split: "test" }, splitDir, [m], 1);
  try {
    await assert.rejects(
      mislabelled.evaluate(agents.slice(1), cfg),
      /The test sets in .* are not the ones being evaluated \(dataDir, split\)/,
    );
  } finally {
    mislabelled.close();
  }
  // the validation questions, not the test ones: the teacher's transcripts name other subjects
  const onTest = await evaluateAgents(agents.slice(0, 1), await loadData(splitDir), cfg);
  assert.notDeepEqual(onTest[0]!.sample, reference[0]!.sample);
  m.dispose();
});

Deno.test("createEvalWorkers(): each cell's episode records, the same as evaluateAgents gives, the rows unchanged", async () => {
  const m = createModel(modelPreset("tiny", data.tokenizer.size), { seed: 1 });
  const agents: AgentSpec[] = [
    {
      name: "Teacher",
      policy: createTeacher(data.tokenizer, { dropProbability: 0 }),
      maxPositions: 512,
      contextPolicy: "full",
    },
    { name: "A", model: m, contextPolicy: "memory" },
  ];
  const inProcess: EpisodeRecord[] = [];
  const reference = await evaluateAgents(agents, data, config, undefined, (r) => void inProcess.push(...r));
  assert.deepEqual(reference, await evaluateAgents(agents, data, config), "the records change no row");
  const key = (r: EpisodeRecord) => `${r.agent}/${r.contextPolicy}/${r.objectives}/${r.index}`;
  // one record per question of each cell: 2 agents × 3 test sets × 3 questions
  assert.equal(inProcess.length, 18);
  assert.equal(new Set(inProcess.map(key)).size, 18);
  const workers = createEvalWorkers(data, dir, [m], 2);
  try {
    const viaWorkers: EpisodeRecord[] = [];
    assert.deepEqual(
      await workers.evaluate(agents, config, undefined, undefined, (r) => void viaWorkers.push(...r)),
      reference,
    );
    const sorted = (rs: EpisodeRecord[]) => rs.toSorted((a, b) => key(a).localeCompare(key(b)));
    assert.deepEqual(sorted(viaWorkers), sorted(inProcess));
  } finally {
    workers.close();
  }
  m.dispose();
});
