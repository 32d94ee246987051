// End to end on the quick preset: SFT lowers its loss, RL raises the mean reward over its first steps,
// an interrupted run resumes to exactly the uninterrupted metrics, and the outputs are all written.
import assert from "node:assert/strict";
import { tf } from "../../lib/tf.ts";
import { resolveConfig } from "../../lib/config/experiment.ts";
import { runPipeline } from "../../lib/pipeline/pipeline.ts";
import { branchRun } from "../../lib/pipeline/branch.ts";
import type { MetricsRow } from "../../lib/train/metrics.ts";

const dataDir = await Deno.makeTempDir();
const config = resolveConfig("quick", { dataDir });
const read = async (dir: string): Promise<MetricsRow[]> =>
  (await Deno.readTextFile(`${dir}/metrics.jsonl`)).split("\n").filter(Boolean).map((l) => JSON.parse(l));
const strip = (rows: MetricsRow[]) =>
  rows.map((r) => Object.fromEntries(Object.entries(r).filter(([k]) => !k.startsWith("time/"))));

const full = await Deno.makeTempDir();
const tensorsBefore = tf.memory().numTensors;
const result = await runPipeline({ config, outDir: full });

Deno.test("pipeline (quick): completes and writes config, metrics, checkpoints, eval table and plots", async () => {
  assert.equal(result.completed, true);
  for (
    const f of [
      "config.json",
      "tokenizer.json",
      "metrics.jsonl",
      "eval.json",
      "eval.md",
      "eval_f1.svg",
      "eval_tokens.svg",
      "train_reward.svg",
      "train_curves.svg",
      "sft/config.json",
      "mempo/policy.safetensors",
      "grpo/config.json",
    ]
  ) {
    assert.ok(await Deno.stat(`${full}/${f}`).then(() => true, () => false), `missing ${f}`);
  }
  const md = await Deno.readTextFile(`${full}/eval.md`);
  for (const f of ["eval_f1.svg", "eval_tokens.svg", "train_curves.svg"]) assert.ok(md.includes(`](${f})`), f);
  for (
    const agent of [
      "Teacher (full)",
      "Teacher (memory)",
      "SFT (full)",
      "SFT (memory)",
      "MemPO (memory)",
      "GRPO (memory)",
    ]
  ) {
    assert.ok(md.includes(agent), agent);
  }
  assert.equal(result.eval!.length, 6 * config.data.testObjectives.length);
  assert.ok(result.eval!.filter((r) => r.agent === "Teacher").every((r) => r.f1 === 1), "the teacher is the ceiling");
  // eval.json: the share of equal-reward groups of the model agents (memory context) per test set, the longest contexts
  const json = JSON.parse(await Deno.readTextFile(`${full}/eval.json`));
  assert.deepEqual(
    json.equalRewardGroups.map((r: { agent: string; objectives: number }) => `${r.agent} ${r.objectives}`),
    ["SFT", "MemPO", "GRPO"].flatMap((a) => config.data.testObjectives.map((k) => `${a} ${k}`)),
  );
  for (const r of json.equalRewardGroups) {
    assert.deepEqual([r.groups, r.groupSize], [config.eval.questions, config.rl.groupSize]);
    assert.ok(r.equalShare >= r.allWrongShare + r.allRightShare - 1e-12 && r.rewardMean >= 0 && r.rewardMean <= 1);
  }
  assert.match(md, /## Groups with equal rewards/);
  assert.match(md, /## Longest contexts/);
  const contexts = json.longestContexts as {
    agent: string;
    contextPolicy: string;
    sftDemos?: number;
    rlRollouts?: number;
  }[];
  assert.equal(contexts.length, 6);
  const metricsRows = await read(full);
  const rlPeak = Math.max(
    ...metricsRows.filter((r) => r.stage === "mempo").map((r) => Number(r["rollout/peak_context_max"])),
  );
  assert.equal(contexts.find((c) => c.agent === "MemPO")!.rlRollouts, rlPeak);
  const sftFull = contexts.find((c) => c.agent === "SFT" && c.contextPolicy === "full")!;
  const sftMemory = contexts.find((c) => c.agent === "SFT" && c.contextPolicy === "memory")!;
  assert.ok(sftFull.sftDemos! >= sftMemory.sftDemos! && sftMemory.sftDemos! > 0);
  assert.ok(
    metricsRows.filter((r) => r.stage === "grpo").every((r) => r["grpo/frac_zero_std_k1"] === r["grpo/frac_zero_std"]),
  );
  assert.equal(tf.memory().numTensors, tensorsBefore, "the pipeline frees every tensor it made");
});

Deno.test("pipeline (quick): SFT lowers its loss; RL raises the mean reward over its first steps", async () => {
  const rows = await read(full);
  const sft = rows.filter((r) => r.stage === "sft").map((r) => Number(r["sft/loss"]));
  assert.equal(sft.length, config.sft.steps);
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  assert.ok(
    mean(sft.slice(-5)) < 0.5 * mean(sft.slice(0, 5)),
    `SFT loss ${mean(sft.slice(0, 5))} → ${mean(sft.slice(-5))}`,
  );
  for (const algo of config.rl.algorithms) {
    const reward = rows.filter((r) => r.stage === algo).map((r) => Number(r["rollout/reward_mean"]));
    assert.equal(reward.length, config.rl.steps);
    const half = Math.floor(reward.length / 2);
    assert.ok(
      mean(reward.slice(-half)) > mean(reward.slice(0, half)),
      `${algo} reward ${reward.map((x) => x.toFixed(2))}`,
    );
  }
});

Deno.test("pipeline (quick): an RL run interrupted and resumed from its checkpoints reproduces the metrics exactly", async () => {
  // start from the finished run's SFT checkpoint (a branch; SFT resume is covered by trainSft's split-run test),
  // then stop RL part-way, resume, and compare every metric but the timings, and the evaluation
  const dir = await Deno.makeTempDir();
  await branchRun(full, dir, config);
  const first = await runPipeline({
    config,
    outDir: dir,
    resume: true,
    stopAfterRlSteps: config.rl.checkpointEvery + 1,
  });
  assert.equal(first.completed, false);
  const partial = (await read(dir)).filter((r) => r.stage === config.rl.algorithms[0]);
  assert.equal(partial.length, config.rl.checkpointEvery + 1);
  const resumed = await runPipeline({ config, outDir: dir, resume: true });
  assert.equal(resumed.completed, true);
  assert.deepEqual(strip(await read(dir)), strip(await read(full)));
  const a = JSON.parse(await Deno.readTextFile(`${dir}/eval.json`)).rows;
  const b = JSON.parse(await Deno.readTextFile(`${full}/eval.json`)).rows;
  assert.deepEqual(a, b);
});

Deno.test("pipeline (quick): a branch trains other RL settings from the run's SFT weights", async () => {
  const dir = await Deno.makeTempDir();
  const grpo = { ...config, rl: { ...config.rl, algorithms: ["grpo" as const], steps: 2 } };
  await branchRun(full, dir, grpo);
  const result = await runPipeline({ config: grpo, outDir: dir, resume: true });
  assert.equal(result.completed, true);
  const rows = strip(await read(dir));
  const fullRows = strip(await read(full));
  const of = (rs: typeof rows, stage: string) => rs.filter((r) => r.stage === stage);
  // the same SFT rows, and GRPO's first two steps exactly as in the run that also trained MemPO first
  assert.deepEqual(of(rows, "sft"), of(fullRows, "sft"));
  assert.deepEqual(of(rows, "grpo"), of(fullRows, "grpo").slice(0, 2));
  assert.deepEqual(of(rows, "mempo"), []);
  assert.ok(
    JSON.parse(await Deno.readTextFile(`${dir}/eval.json`)).rows.some((r: { agent: string }) => r.agent === "GRPO"),
  );
});

Deno.test("tools/lookup_probe.ts on the quick run: one lookup line per test set and order, every marker probed once a question", async () => {
  const tool = new URL("../../tools/lookup_probe.ts", import.meta.url).pathname;
  const out = await new Deno.Command(Deno.execPath(), { args: ["run", "-A", tool, full, "--policy", "mempo"] })
    .output();
  const text = new TextDecoder().decode(out.stdout);
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  const n = config.eval.questions;
  for (const k of config.data.testObjectives) {
    for (const order of ["marker", "reversed"]) {
      const line = text.split("\n").find((l) => l.startsWith(`${k} objectives, ${order} `));
      assert.ok(line !== undefined, `${k} objectives, ${order}: ${text}`);
      const cells = [...line.matchAll(/q(\d+) (\d+)% \((\d+)\)/g)];
      assert.deepEqual(cells.map((c) => Number(c[1])), Array.from({ length: k }, (_, i) => i + 1), line);
      assert.ok(cells.every((c) => Number(c[3]) === n && Number(c[2]) <= 100), line);
    }
    const mem = text.split("\n").find((l) => l.startsWith(`${k} objectives, <mem> names`));
    assert.match(mem ?? "", /carried slots \d+% \(\d+\), new slot \d+% \(\d+\)/);
  }
  const usage = await new Deno.Command(Deno.execPath(), { args: ["run", "-A", tool, full, "--policy", "dpo"] })
    .output();
  assert.equal(usage.code, 2);
});

Deno.test("pipeline: resuming a run whose data was rebuilt with another tokenizer fails before any training", async () => {
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(`${dir}/tokenizer.json`, "{}");
  await Deno.writeTextFile(`${dir}/metrics.jsonl`, "");
  await assert.rejects(
    () => runPipeline({ config, outDir: dir, resume: true }),
    /Cannot resume .*tokenizer.json differs from the run's tokenizer.json/,
  );
  assert.equal(await Deno.readTextFile(`${dir}/tokenizer.json`), "{}", "the run's tokenizer is kept");
  assert.equal(await Deno.readTextFile(`${dir}/metrics.jsonl`), "", "nothing was trained");
});
