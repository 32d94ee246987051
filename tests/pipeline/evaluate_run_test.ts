import assert from "node:assert/strict";
import { buildData, loadData } from "../../lib/data/build.ts";
import { resolveConfig } from "../../lib/config/experiment.ts";
import { modelPreset } from "../../lib/model/config.ts";
import { createModel, type Model } from "../../lib/model/params.ts";
import { saveCheckpoint } from "../../lib/model/checkpoint.ts";
import { evaluateAgents, runAgents } from "../../lib/eval/evaluate.ts";
import { demoContexts } from "../../lib/eval/longest_contexts.ts";
import { sftDemoOptions, teacherDemonstrations } from "../../lib/train/demos.ts";
import { DEMO_CONTEXTS_STATE, evaluateRun, runDemoContexts } from "../../lib/pipeline/evaluate_run.ts";
import { DataError } from "../../lib/errors.ts";

const config = resolveConfig("quick", {
  rl: { algorithms: ["mempo"] },
  sft: { demos: 6 },
  data: { testObjectives: [1, 2], testCount: 2 },
  eval: { questions: 2, maxTurns: 3, maxTurnTokens: 16 },
});
const dataDir = await Deno.makeTempDir();
await buildData(dataDir, 2, { trainCount: 6, testCount: 2, testObjectives: [1, 2], sizes: { distractors: 0 } });
const data = await loadData(dataDir);
const models = () => {
  const sft = createModel(modelPreset("tiny", data.tokenizer.size), { seed: 1 });
  const mempo = createModel(modelPreset("tiny", data.tokenizer.size), { seed: 2 });
  return { sft, mempo, trained: new Map([["mempo" as const, mempo]]) };
};
const disposed = (m: Model) => m.weights.size === 0;

Deno.test("evaluateRun(): the rows of evaluateAgents, the recorded SFT demonstrations' contexts, every file; the models left to the caller", async () => {
  // the reference: the same agents evaluated directly, on models built from the same seeds
  const ref = models();
  const want = await evaluateAgents(runAgents(ref.sft, ref.trained, data.tokenizer), data, config.eval);
  ref.sft.dispose();
  ref.mempo.dispose();
  const runDir = await Deno.makeTempDir();
  const { sft, mempo, trained } = models();
  // the SFT stage's record: contexts that no demonstration has, so the table shows they were read, not recomputed
  await saveCheckpoint(`${runDir}/sft`, {
    models: { policy: sft },
    state: { step: 1, done: true, demoContexts: { memory: 11, full: 22 } },
  });
  const events: string[] = [];
  const { rows, timings } = await evaluateRun({
    runDir,
    config,
    data,
    sft,
    trained,
    metrics: [{ stage: "mempo", step: 0, "rollout/peak_context_max": 33 }],
    timings: { data: 0.5 },
    onProgress: (e) => events.push(`${e.stage} ${e.step}/${e.total}`),
  });
  assert.deepEqual(rows, want);
  assert.deepEqual(Object.keys(timings), ["data", "eval", "groups"]);
  // 5 agents × 2 test sets, then the 2 memory-context model agents × 2 test sets
  assert.deepEqual(events, [
    ...Array.from({ length: 10 }, (_, i) => `eval ${i + 1}/10`),
    ...Array.from({ length: 4 }, (_, i) => `groups ${i + 1}/4`),
  ]);
  const json = JSON.parse(await Deno.readTextFile(`${runDir}/eval.json`));
  assert.deepEqual(Object.keys(json), [
    "rows",
    "timings",
    "unseen",
    "equalRewardGroups",
    "longestContexts",
    "tokenCost",
    "rlSignal",
  ]);
  assert.deepEqual(json.rows, JSON.parse(JSON.stringify(want)));
  // one token-cost row per evaluation row, its turns those the row recorded
  assert.deepEqual(
    json.tokenCost.map((c: { agent: string; objectives: number; turns: number }) => [c.agent, c.objectives, c.turns]),
    want.map((r) => [r.agent, r.objectives, r.questionTurns!.reduce((a, b) => a + b, 0) / r.questionTurns!.length]),
  );
  assert.match(await Deno.readTextFile(`${runDir}/eval.md`), /\n## What the tokens pay for\n/);
  // the one MemPO row logs none of the summarised metrics: one quarter, every mean null
  assert.deepEqual(json.rlSignal, [{
    stage: "mempo",
    steps: 1,
    quarters: [[0, 0]],
    means: { reward: [null], equalShare: [null], entropy: [null], refKl: [null], clipFraction: [null] },
  }]);
  const longest = Object.fromEntries(
    json.longestContexts.map((r: { agent: string; contextPolicy: string; sftDemos?: number; rlRollouts?: number }) => [
      `${r.agent} ${r.contextPolicy}`,
      [r.sftDemos, r.rlRollouts],
    ]),
  );
  assert.deepEqual(longest, {
    "Teacher full": [undefined, undefined],
    "Teacher memory": [undefined, undefined],
    "SFT full": [22, undefined],
    "SFT memory": [11, undefined],
    "MemPO memory": [11, 33],
  });
  assert.deepEqual(json.equalRewardGroups.map((r: { agent: string }) => r.agent), ["SFT", "SFT", "MemPO", "MemPO"]);
  for (const f of ["eval.md", "eval_f1.svg", "eval_tokens.svg", "train_curves.svg"]) {
    assert.ok((await Deno.stat(`${runDir}/${f}`)).size > 0, f);
  }
  assert.ok(!disposed(sft) && !disposed(mempo), "the caller owns the models");
  sft.dispose();
  mempo.dispose();
});

Deno.test("evaluateRun({ outDir }): the validation sets' evaluation in its own folder, named as such", async () => {
  const splitDir = await Deno.makeTempDir();
  await buildData(splitDir, 2, {
    trainCount: 6,
    testCount: 2,
    testObjectives: [1, 2],
    validCount: 2,
    sizes: { distractors: 0 },
  });
  const valid = await loadData(splitDir, { split: "valid" });
  const sft = createModel(modelPreset("tiny", valid.tokenizer.size), { seed: 1 });
  const ref = createModel(modelPreset("tiny", valid.tokenizer.size), { seed: 1 });
  const want = await evaluateAgents(runAgents(ref, new Map(), valid.tokenizer), valid, config.eval);
  ref.dispose();
  const runDir = await Deno.makeTempDir();
  await saveCheckpoint(`${runDir}/sft`, {
    models: { policy: sft },
    state: { step: 1, done: true, demoContexts: { memory: 11, full: 22 } },
  });
  const outDir = `${runDir}/valid`;
  await Deno.mkdir(outDir);
  const { rows } = await evaluateRun({
    runDir,
    outDir,
    config: { ...config, rl: { ...config.rl, algorithms: [] } },
    data: valid,
    sft,
    trained: new Map(),
    metrics: [],
  });
  sft.dispose();
  assert.deepEqual(rows, want);
  const json = JSON.parse(await Deno.readTextFile(`${outDir}/eval.json`));
  assert.equal(json.split, "valid");
  assert.deepEqual(json.rows, JSON.parse(JSON.stringify(want)));
  assert.match(await Deno.readTextFile(`${outDir}/eval.md`), /^# Evaluation on the validation sets\n/);
  assert.equal(await Deno.stat(`${runDir}/eval.json`).then(() => true, () => false), false, "the run's own untouched");
});

Deno.test("runDemoContexts(): recorded in sft/'s state, else recomputed from the same seeded demonstrations; damaged state refused", async () => {
  const runDir = await Deno.makeTempDir();
  const m = createModel(modelPreset("tiny", data.tokenizer.size), { seed: 1 });
  const demos = await teacherDemonstrations(data, sftDemoOptions(config, m.config.maxPositions));
  const recomputed = demoContexts(demos.episodes, demos.policies);
  assert.ok(recomputed.full! > recomputed.memory!);
  // no checkpoint, or one saved before the contexts were recorded: recomputed
  assert.deepEqual(await runDemoContexts(runDir, config, data, m.config.maxPositions), recomputed);
  await saveCheckpoint(`${runDir}/sft`, { models: { policy: m }, state: { step: 1, done: true } });
  assert.deepEqual(await runDemoContexts(runDir, config, data, m.config.maxPositions), recomputed);
  for (const bad of [{ memory: -1 }, { memory: 1.5 }, { other: 3 }, [1, 2], "long"]) {
    await saveCheckpoint(`${runDir}/sft`, {
      models: { policy: m },
      state: { step: 1, done: true, [DEMO_CONTEXTS_STATE]: bad },
    });
    await assert.rejects(runDemoContexts(runDir, config, data, m.config.maxPositions), (e: Error) => {
      assert.ok(e instanceof DataError);
      assert.match(e.message, /sft\/config\.json's state\.demoContexts must map memory and full to token counts/);
      assert.ok(e.message.includes(`current value is ${JSON.stringify(bad)}`), e.message);
      return true;
    });
  }
  m.dispose();
});

Deno.test("evaluateRun(): refused (an algorithm without its policy) it writes nothing and leaves the models to the caller", async () => {
  const runDir = await Deno.makeTempDir();
  const { sft, mempo } = models();
  const grpoToo = { ...config, rl: { ...config.rl, algorithms: ["mempo" as const, "grpo" as const] } };
  await assert.rejects(
    evaluateRun({ runDir, config: grpoToo, data, sft, trained: new Map([["mempo", mempo]]), metrics: [] }),
    /Cannot evaluate .*: no trained policy for grpo \(rl\.algorithms\)/,
  );
  assert.ok(!disposed(sft) && !disposed(mempo));
  sft.dispose();
  mempo.dispose();
  assert.deepEqual([...Deno.readDirSync(runDir)], []);
});
