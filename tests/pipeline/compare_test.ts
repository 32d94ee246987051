// compareRun end to end on a tiny run (tiny model, 10 SFT steps, 1 RL step, 3 questions a test set): compare.json's
// shape and numbers, the pairs, the run's own MemPO/GRPO reused at its RL seed, a branch per other seed, resume.
import assert from "node:assert/strict";
import { tf } from "../../lib/tf.ts";
import { resolveConfig } from "../../lib/config/experiment.ts";
import { runPipeline } from "../../lib/pipeline/pipeline.ts";
import { compareMarkdown, type CompareResult, compareRun } from "../../lib/pipeline/compare.ts";
import { assertAllClose } from "../../lib/testing/all_close.ts";
import { DataError, UsageError } from "../../lib/errors.ts";

const dataDir = await Deno.makeTempDir();
const config = resolveConfig("quick", {
  dataDir,
  model: "tiny",
  data: { trainCount: 40, testCount: 3, testObjectives: [1, 2], validCount: 4 },
  sft: { steps: 10, demos: 40, batchSize: 8 },
  rl: { steps: 1, questionsPerStep: 2, groupSize: 2, maxTurns: 4, maxTurnTokens: 24, checkpointEvery: 1 },
  eval: { questions: 3, maxTurns: 6, maxTurnTokens: 32 },
});
const run = await Deno.makeTempDir();
await runPipeline({ config, outDir: run });
const tensorsBefore = tf.memory().numTensors;
const lines: string[] = [];
const first = (await compareRun(run, { seeds: [0, 1], resamples: 2000, log: (l) => lines.push(l) }))!;

Deno.test("compareRun(): compare.json has the shape, the rows and pairs of seeds × questions, intervals around the mean", async () => {
  const json = JSON.parse(await Deno.readTextFile(`${run}/compare.json`)) as CompareResult;
  assert.deepEqual(json, JSON.parse(JSON.stringify(first)));
  assert.deepEqual(json.seeds, [0, 1]);
  for (const r of json.rows) {
    for (const k of ["objectives", "agent", "seed", "em", "f1"]) assert.ok(k in r, `rows[].${k}`);
    assert.equal(r.questionEm.length, 3);
    assertAllClose(r.em, r.questionEm.reduce((a, b) => a + b, 0) / 3, { atol: 1e-12 });
  }
  assert.deepEqual(json.rows.map((r) => `${r.objectives} ${r.agent} ${r.seed}`), [
    "1 MemPO 0",
    "1 MemPO 1",
    "1 GRPO 0",
    "1 GRPO 1",
    "2 MemPO 0",
    "2 MemPO 1",
    "2 GRPO 0",
    "2 GRPO 1",
  ]);
  assert.deepEqual(json.paired.map((p) => p.objectives), [1, 2]);
  for (const p of json.paired) {
    for (const k of ["objectives", "meanDiff", "ciLow", "ciHigh"]) assert.ok(k in p, `paired[].${k}`);
    assert.equal(p.pairs, 2 * 3, "seeds × questions");
    assert.deepEqual([p.seeds, p.questions, p.resamples], [2, 3, 2000]);
    // the mean of the pairs is the mean over seeds of the EM difference
    const em = (agent: string, s: number) =>
      json.rows.find((r) => r.objectives === p.objectives && r.agent === agent && r.seed === s)!.em;
    assertAllClose(p.meanDiff, ((em("MemPO", 0) - em("GRPO", 0)) + (em("MemPO", 1) - em("GRPO", 1))) / 2, {
      atol: 1e-12,
    });
    assert.ok(p.ciLow <= p.meanDiff + 1e-12 && p.meanDiff <= p.ciHigh + 1e-12, JSON.stringify(p));
    assert.equal(p.excludesZero, p.ciLow > 0 || p.ciHigh < 0);
  }
  // the SFT start comes from the run's eval.json
  const evalRows = JSON.parse(await Deno.readTextFile(`${run}/eval.json`)).rows;
  assert.deepEqual(
    json.sft,
    evalRows.filter((r: { agent: string; contextPolicy: string }) => r.agent === "SFT" && r.contextPolicy === "memory")
      .map((r: { objectives: number; em: number }) => ({ objectives: r.objectives, em: r.em })),
  );
  assert.equal(tf.memory().numTensors, tensorsBefore, "compareRun frees every tensor it made");
});

Deno.test("compareRun(): seed 0 is the run's own MemPO/GRPO (its RL seed), seed 1 a branch that trained with rl.seed 1", async () => {
  assert.ok(first.rows.filter((r) => r.seed === 0).every((r) => r.source === "run"));
  assert.ok(first.rows.filter((r) => r.seed === 1).every((r) => r.source === "compare/seed1"));
  assert.equal(await Deno.stat(`${run}/compare/seed0/mempo`).then(() => true, () => false), false, "nothing trained");
  const seedConfig = JSON.parse(await Deno.readTextFile(`${run}/compare/seed1/config.json`));
  assert.equal(seedConfig.rl.seed, 1);
  assert.deepEqual(seedConfig.rl.algorithms, ["mempo", "grpo"]);
  const read = async (dir: string) =>
    (await Deno.readTextFile(`${dir}/metrics.jsonl`)).split("\n").filter(Boolean).map((l) => JSON.parse(l));
  const runRows = await read(run);
  const seedRows = await read(`${run}/compare/seed1`);
  const strip = (rows: Record<string, unknown>[]) =>
    rows.map((r) => Object.fromEntries(Object.entries(r).filter(([k]) => !k.startsWith("time/"))));
  // the same SFT rows (its checkpoint), other RL rollouts (another seed)
  assert.deepEqual(strip(seedRows.filter((r) => r.stage === "sft")), strip(runRows.filter((r) => r.stage === "sft")));
  const rollouts = (rows: Record<string, unknown>[]) =>
    rows.filter((r) => r.stage === "mempo").map((r) => [r["rollout/total_tokens"], r["rollout/sampled_tokens"]]);
  assert.notDeepEqual(rollouts(seedRows), rollouts(runRows));
  assert.equal(await Deno.stat(`${run}/compare/seed1/eval.json`).then(() => true, () => false), false);
  assert.ok(lines.some((l) => /seed 0: the run's own MemPO and GRPO/.test(l)), lines.join("\n"));
  assert.ok(lines.some((l) => /seed 1: branched from/.test(l)), lines.join("\n"));
});

Deno.test("compare.md: a table per test set, the interval, and a sentence computed from it", async () => {
  const md = await Deno.readTextFile(`${run}/compare.md`);
  // compareMarkdown, then the research check with these seeds
  assert.equal(md.slice(0, compareMarkdown(first).length), compareMarkdown(first));
  assert.match(
    md.slice(compareMarkdown(first).length),
    /^\n## Research check\n\nThe run's eval\.json with these seeds/,
  );
  for (const p of first.paired) {
    const section = md.split(`## ${p.objectives} objective`)[1]!.split("\n## ")[0]!;
    assert.match(section, /\| agent \| seed 0 \| seed 1 \| mean \|/);
    assert.match(section, /\| MemPO \| \d\.\d{3} \| \d\.\d{3} \| \d\.\d{3} \|/);
    assert.match(section, /over 6 pairs \(2 seeds × 3 questions\)/);
    assert.match(section, p.excludesZero ? /The interval excludes 0/ : /The interval contains 0/);
  }
  // the sentence follows the interval, not the mean: flip an interval and the sentence flips
  const flipped = {
    ...first,
    paired: first.paired.map((p) => ({ ...p, ciLow: 0.01, ciHigh: 0.2, excludesZero: true })),
  };
  assert.match(compareMarkdown(flipped), /The interval excludes 0: at 1 objective MemPO's EM is above GRPO's/);
  const below = {
    ...first,
    paired: first.paired.map((p) => ({ ...p, ciLow: -0.3, ciHigh: -0.1, excludesZero: true })),
  };
  assert.match(compareMarkdown(below), /at 2 objectives MemPO's EM is below GRPO's/);
});

Deno.test("compareRun(): a second run reuses every finished seed; --objectives restricts; bad input is named", async () => {
  const weights = `${run}/compare/seed1/mempo/policy.safetensors`;
  const before = (await Deno.stat(weights)).mtime!.getTime();
  const again: string[] = [];
  const second = (await compareRun(run, { seeds: [0, 1], resamples: 2000, log: (l) => again.push(l) }))!;
  assert.deepEqual(second, first);
  assert.deepEqual(again.filter((l) => /reused/.test(l)).length, 2, again.join("\n"));
  assert.ok(!again.some((l) => /evaluating|branched|resuming/.test(l)), again.join("\n"));
  assert.equal((await Deno.stat(weights)).mtime!.getTime(), before, "no training");
  // one test set: its rows and interval only, nothing evaluated again
  const only: string[] = [];
  const two = (await compareRun(run, { seeds: [1, 0], objectives: [2], resamples: 2000, log: (l) => only.push(l) }))!;
  assert.deepEqual([...new Set(two.rows.map((r) => r.objectives))], [2]);
  assertAllClose(two.paired.map((p) => p.meanDiff), [first.paired[1]!.meanDiff], { atol: 1e-12 });
  assert.ok(only.every((l) => /reused/.test(l)), only.join("\n"));
  const usage = (message: RegExp) => (e: Error) => e instanceof UsageError && message.test(e.message);
  const data = (message: RegExp) => (e: Error) => e instanceof DataError && message.test(e.message);
  await assert.rejects(
    compareRun(run, { seeds: [0], objectives: [4] }),
    usage(/objectives must be among its test sets \(1, 2\), current value is 4/),
  );
  await assert.rejects(compareRun(run, { seeds: [1, 1] }), usage(/seeds must differ/));
  await assert.rejects(compareRun(run, { seeds: [-1] }), usage(/seeds must be non-negative integers/));
  await assert.rejects(compareRun(run, { seeds: [0], resamples: 0 }), usage(/resamples must be an integer ≥ 1/));
  await assert.rejects(compareRun(`${run}/missing`), data(/missing\/config\.json: no such file/));
  // a damaged config.json is told from a missing one
  const broken = await Deno.makeTempDir();
  await Deno.writeTextFile(`${broken}/config.json`, '{"preset": "quick", ');
  await assert.rejects(compareRun(broken), data(/config\.json is not valid JSON/));
  await Deno.remove(broken, { recursive: true });
});

Deno.test("compareRun(): a stage's checkpoint left as .<name>.next by a kill between the renames counts as finished", async () => {
  // the run's own MemPO, as a kill between saveCheckpoint's two renames leaves it: no mempo/, .mempo.prev and .mempo.next
  await Deno.rename(`${run}/mempo`, `${run}/.mempo.next`);
  await Deno.mkdir(`${run}/.mempo.prev`);
  await Deno.rename(`${run}/compare/seed0/compare_eval.json`, `${run}/compare_eval.seed0.json`);
  try {
    const again: string[] = [];
    const r = (await compareRun(run, { seeds: [0], resamples: 2000, log: (l) => again.push(l) }))!;
    assert.ok(again.some((l) => /seed 0: the run's own MemPO and GRPO/.test(l)), again.join("\n"));
    assert.ok(!again.some((l) => /branched|resuming/.test(l)), again.join("\n"));
    assert.deepEqual(r.rows, first.rows.filter((x) => x.seed === 0));
  } finally {
    await Deno.remove(`${run}/.mempo.prev`);
    await Deno.rename(`${run}/.mempo.next`, `${run}/mempo`);
    await Deno.rename(`${run}/compare_eval.seed0.json`, `${run}/compare/seed0/compare_eval.json`);
  }
});

Deno.test("compareRun(): shouldStop stops before the next seed and returns undefined; the finished seeds are kept", async () => {
  let polls = 0;
  const md = await Deno.readTextFile(`${run}/compare.md`);
  const r = await compareRun(run, { seeds: [0, 1], resamples: 2000, shouldStop: () => ++polls > 1 });
  assert.equal(r, undefined);
  assert.equal(polls, 2, "polled before seed 0 (go) and before seed 1 (stop)");
  assert.equal(await Deno.readTextFile(`${run}/compare.md`), md, "compare.md untouched");
  const again = (await compareRun(run, { seeds: [0, 1], resamples: 2000 }))!;
  assert.deepEqual(again, first);
  // stopped inside a new seed's RL: its branch is kept, and the next comparison resumes it
  polls = 0;
  const stopped = await compareRun(run, { seeds: [2], resamples: 2000, shouldStop: () => ++polls > 2 });
  assert.equal(stopped, undefined);
  assert.ok(polls > 2, `${polls} polls`);
  assert.equal(JSON.parse(await Deno.readTextFile(`${run}/compare/seed2/config.json`)).rl.seed, 2);
  const resumed: string[] = [];
  const two = (await compareRun(run, { seeds: [2], resamples: 2000, log: (l) => resumed.push(l) }))!;
  assert.ok(resumed.some((l) => /seed 2: resuming/.test(l)), resumed.join("\n"));
  assert.deepEqual(two.seeds, [2]);
  await Deno.remove(`${run}/compare/seed2`, { recursive: true });
});

Deno.test("compareRun(): the pairs are (seed, question): stored per-question EMs of a seed give the hand-computed difference", async () => {
  // the tiny run scores 0 everywhere; give seed 1's stored evaluation known per-question EMs and compare again
  const path = `${run}/compare/seed1/compare_eval.json`;
  const saved = await Deno.readTextFile(path);
  const record = JSON.parse(saved);
  const set = (k: number, agent: string, questionEm: number[]) => {
    const r = record.rows.find((x: { objectives: number; agent: string }) => x.objectives === k && x.agent === agent);
    Object.assign(r, { questionEm, em: questionEm.reduce((a, b) => a + b, 0) / questionEm.length });
  };
  set(1, "MemPO", [1, 1, 1]);
  set(1, "GRPO", [0, 0, 0]);
  set(2, "MemPO", [1, 0, 0.5]);
  set(2, "GRPO", [0, 1, 0.5]);
  await Deno.writeTextFile(path, JSON.stringify(record));
  const r = (await compareRun(run, { seeds: [0, 1], resamples: 4000 }))!;
  await Deno.writeTextFile(path, saved);
  const [one, two] = r.paired;
  // 1 objective: pairs (seed 0: 0, 0, 0; seed 1: 1, 1, 1) → mean 0.5; resampling seeds gives means 0, 0.5 or 1
  assert.equal(one!.meanDiff, 0.5);
  assert.deepEqual([one!.ciLow, one!.ciHigh], [0, 1]);
  assert.equal(one!.excludesZero, false);
  // seeds fixed, every question's pair difference is 0.5: a point
  assert.deepEqual(one!.questionsOnly, { ciLow: 0.5, ciHigh: 0.5 });
  // 2 objectives: seed 1's pairs +1, −1, 0 → mean 0 over the 6 pairs
  assert.equal(two!.meanDiff, 0);
  assert.ok(two!.ciLow < 0 && two!.ciHigh > 0);
  assert.match(compareMarkdown(r), /MemPO − GRPO EM: \+0\.500, 95 % interval \[\+0\.000, \+1\.000\] over 6 pairs/);
});

Deno.test("compareMarkdown(): over the sizes, each algorithm's EM per seed and over seeds, the two's mean and the start's, by hand", () => {
  const row = (objectives: number, agent: string, seed: number, em: number) => ({
    objectives,
    agent,
    seed,
    em,
    f1: em,
    questionEm: [em],
    source: "run" as const,
  });
  const pair = (objectives: number) => ({
    objectives,
    meanDiff: 0,
    ciLow: -1,
    ciHigh: 1,
    pairs: 2,
    seeds: 2,
    questions: 1,
    resamples: 10,
    level: 0.95,
    resample: "seeds-and-questions" as const,
    excludesZero: false,
    questionsOnly: { ciLow: -1, ciHigh: 1 },
  });
  const result: CompareResult = {
    run: "runs/x",
    seeds: [0, 1],
    rows: [
      row(1, "MemPO", 0, 1),
      row(2, "MemPO", 0, 0.5),
      row(1, "MemPO", 1, 0.5),
      row(2, "MemPO", 1, 0.5),
      row(1, "GRPO", 0, 0),
      row(2, "GRPO", 0, 0.5),
      row(1, "GRPO", 1, 1),
      row(2, "GRPO", 1, 0),
    ],
    paired: [pair(1), pair(2)],
    sft: [{ objectives: 1, em: 0.8 }, { objectives: 2, em: 0.4 }],
    questions: 1,
  };
  const section = compareMarkdown(result).split("## Over the 2 sizes")[1]!;
  // MemPO (1 + 0.5) / 2, (0.5 + 0.5) / 2; GRPO (0 + 0.5) / 2, (1 + 0) / 2; the two: 0.5 at each seed
  assert.match(section, /\| MemPO \| 0\.750 \| 0\.500 \| 0\.625 \|/);
  assert.match(section, /\| GRPO \| 0\.250 \| 0\.500 \| 0\.375 \|/);
  assert.match(section, /\| MemPO and GRPO \| 0\.500 \| 0\.500 \| 0\.500 \|/);
  assert.match(section, /The SFT start \(memory context\): 0\.600\./);
  // a seed without a size is left out of the mean, shown as –
  const partial = { ...result, rows: result.rows.filter((r) => !(r.seed === 1 && r.objectives === 2)) };
  assert.match(compareMarkdown(partial), /\| MemPO \| 0\.750 \| – \| 0\.750 \|/);
  // one size: no such section
  assert.doesNotMatch(compareMarkdown({ ...result, paired: [pair(1)] }), /Over the/);
});

Deno.test("tools/compare.ts: prints each test set's interval from the finished seeds; usage errors exit 2", async () => {
  const tool = new URL("../../tools/compare.ts", import.meta.url).pathname;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", tool, run, "--seeds", "0,1", "--resamples", "2000"],
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  assert.match(text, /seed 1: evaluated before .*reused/);
  assert.match(text, /2 objectives: MemPO − GRPO EM -?\d\.\d{3} \[-?\d\.\d{3}, -?\d\.\d{3}\] over 6 pairs/);
  for (const args of [[], [run, "--seeds", "a"], [run, "--bogus"]]) {
    const bad = await new Deno.Command(Deno.execPath(), { args: ["run", "-A", tool, ...args] }).output();
    assert.equal(bad.code, 2, args.join(" "));
  }
});

Deno.test("compareRun(): the seeds' evaluation on eval workers (the default, every core) gives the rows of the evaluation in process", async () => {
  const copy = await Deno.makeTempDir();
  await new Deno.Command("cp", { args: ["-r", `${run}/.`, copy] }).output();
  // evaluated again: the branches' RL is finished and kept, their stored rows are not
  for (const seed of [0, 1]) await Deno.remove(`${copy}/compare/seed${seed}/compare_eval.json`).catch(() => {});
  await Deno.remove(`${copy}/compare.json`).catch(() => {});
  const before = Deno.env.get("MEMPO_EVAL_WORKERS");
  Deno.env.set("MEMPO_EVAL_WORKERS", "1");
  try {
    const inProcess = (await compareRun(copy, { seeds: [0, 1], resamples: 2000, log: () => {} }))!;
    const strip = (r: CompareResult) => r.rows.map(({ source: _, ...row }) => row);
    assert.deepEqual(strip(inProcess), strip(first));
    assert.deepEqual(inProcess.paired, first.paired);
  } finally {
    if (before === undefined) Deno.env.delete("MEMPO_EVAL_WORKERS");
    else Deno.env.set("MEMPO_EVAL_WORKERS", before);
  }
});

Deno.test("compareRun({ split: 'valid' }): the seeds' RL reused, evaluated on the validation sets, written to RUN/valid", async () => {
  const testJson = await Deno.readTextFile(`${run}/compare.json`);
  const lines: string[] = [];
  const r = (await compareRun(run, { seeds: [0, 1], resamples: 2000, split: "valid", log: (l) => lines.push(l) }))!;
  assert.equal(r.split, "valid");
  assert.deepEqual(JSON.parse(await Deno.readTextFile(`${run}/valid/compare.json`)), JSON.parse(JSON.stringify(r)));
  assert.match(await Deno.readTextFile(`${run}/valid/compare.md`), /^# MemPO vs GRPO on the validation sets\n/);
  assert.equal(await Deno.readTextFile(`${run}/compare.json`), testJson, "the test sets' comparison untouched");
  // no RL again: seed 0 is the run's own, seed 1 the branch trained for the test comparison
  assert.ok(lines.some((l) => /seed 1: resuming/.test(l)), lines.join("\n"));
  assert.ok(!lines.some((l) => /branched/.test(l)), lines.join("\n"));
  // 4 validation questions a set, of which eval.questions (3) are asked; each seed's rows in their own file
  for (const row of r.rows) assert.equal(row.questionEm.length, 3);
  const stored = JSON.parse(await Deno.readTextFile(`${run}/compare/seed1/compare_eval_valid.json`));
  assert.deepEqual(
    stored.rows,
    r.rows.filter((x) => x.seed === 1).sort((a, b) => a.objectives - b.objectives || a.agent.localeCompare(b.agent)),
  );
  assert.deepEqual(r.sft, [], "no RUN/valid/eval.json yet: no SFT start");
  const again: string[] = [];
  await compareRun(run, { seeds: [0, 1], resamples: 2000, split: "valid", log: (l) => again.push(l) });
  assert.ok(
    again.filter((l) => /evaluated before .*compare_eval_valid\.json\), reused/.test(l)).length === 2,
    again.join("\n"),
  );
});
