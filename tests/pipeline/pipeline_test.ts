// End to end on the quick preset: SFT lowers its loss, RL updates the policy every step,
// a real `deno task train` killed at ten points resumes to exactly the uninterrupted metrics and eval, resumes
// that must refuse change nothing, and the outputs are all written.
import assert from "node:assert/strict";
import { tf } from "../../lib/tf.ts";
import { resolveConfig } from "../../lib/config/experiment.ts";
import { runPipeline } from "../../lib/pipeline/pipeline.ts";
import { branchRun } from "../../lib/pipeline/branch.ts";
import type { MetricsRow } from "../../lib/train/metrics.ts";
import { currentCheckpoint, readCheckpointRecord } from "../../lib/model/checkpoint.ts";
import { buildTokenizer, tokenizerToJson } from "../../lib/text/tokenizer.ts";
import { taskStderr } from "../_subprocess.ts";
import { rlSignal } from "../../lib/eval/rl_signal.ts";
import { rlStages } from "../../lib/train/metrics.ts";
import { runFigures } from "../../lib/pipeline/run_figures.ts";

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
      "train_signal.svg",
      "sft/config.json",
      "mempo/policy.safetensors",
      "grpo/config.json",
    ]
  ) {
    assert.ok(await Deno.stat(`${full}/${f}`).then(() => true, () => false), `missing ${f}`);
  }
  const md = await Deno.readTextFile(`${full}/eval.md`);
  for (const f of ["eval_f1.svg", "eval_tokens.svg", "train_curves.svg", "train_signal.svg"]) {
    assert.ok(md.includes(`](${f})`), f);
  }
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

Deno.test("pipeline (quick): SFT lowers its loss; every RL step updates the policy, which leaves the reference", async () => {
  const rows = await read(full);
  const sft = rows.filter((r) => r.stage === "sft").map((r) => Number(r["sft/loss"]));
  assert.equal(sft.length, config.sft.steps);
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  assert.ok(
    mean(sft.slice(-5)) < 0.5 * mean(sft.slice(0, 5)),
    `SFT loss ${mean(sft.slice(0, 5))} → ${mean(sft.slice(-5))}`,
  );
  // 8 steps of 16 rollouts move the training reward within the noise of the question draw (0.39 → 0.36 at one
  // commit): that RL raises a reward is tests/train/grpo_learns_test.ts's; here every step updates, nothing is
  // skipped, and the policy's KL to the SFT reference grows from 0
  for (const algo of config.rl.algorithms) {
    const steps = rows.filter((r) => r.stage === algo);
    assert.equal(steps.length, config.rl.steps);
    for (const r of steps) {
      assert.ok(Number(r["train/updates"]) >= 1 && Number(r["train/skipped"]) === 0, JSON.stringify(r));
      assert.ok(Number.isFinite(Number(r["loss/policy"])) && Number.isFinite(Number(r["rollout/reward_mean"])));
    }
    const kl = steps.map((r) => Number(r["kl/ref"]));
    assert.ok(
      Math.max(...kl.slice(-4)) > Math.max(1e-5, 2 * Math.abs(kl[0]!)),
      `${algo} KL to the reference ${kl.map((x) => x.toExponential(1))}`,
    );
  }
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

Deno.test("research/lookup_probe.ts on the quick run (state memory): one line per test set with every step of the operation", async () => {
  const tool = new URL("../../research/lookup_probe.ts", import.meta.url).pathname;
  const out = await new Deno.Command(Deno.execPath(), { args: ["run", "-A", tool, full, "--policy", "mempo"] })
    .output();
  const text = new TextDecoder().decode(out.stdout);
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  for (const k of config.data.testObjectives) {
    const line = text.split("\n").find((l) => l.startsWith(`${k} objectives, steps `));
    assert.ok(line !== undefined, `${k} objectives: ${text}`);
    const cells = [...line.matchAll(/ {2}([a-z ]+?) (\d+)% \((\d+)\)/g)].map((c) => c[1]!.trim());
    // every objective count has the first turn's subjects, the appended answers, the think, search and final answer
    for (const step of ["open from question", "answer appended", "think", "search", "final answer"]) {
      assert.ok(cells.includes(step), `${step} missing: ${line}`);
    }
    if (k > 1) assert.ok(cells.includes("answers carried"), line);
  }
  const usage = await new Deno.Command(Deno.execPath(), { args: ["run", "-A", tool, full, "--policy", "dpo"] })
    .output();
  assert.equal(usage.code, 2);
});

Deno.test("research/recall_probe.ts on the quick run: every recall question sorted once, the same on a second run", async () => {
  const tool = new URL("../../research/recall_probe.ts", import.meta.url).pathname;
  const probe = async () => {
    const out = await new Deno.Command(Deno.execPath(), { args: ["run", "-A", tool, full, "--count", "20"] }).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    return new TextDecoder().decode(out.stdout).trim();
  };
  const line = await probe();
  const total = Number(line.match(/recall questions (\d+)/)?.[1]);
  const counts = [...line.matchAll(/ {2}[a-z' ]+ (\d+) \((\d\.\d\d)\)/g)].map((m) => Number(m[1]));
  // 20 sequences of 3 questions, each in one of the four outcomes
  assert.equal(total, 60, line);
  assert.equal(counts.length, 4, line);
  assert.equal(counts.reduce((a, b) => a + b, 0), 60, line);
  assert.equal(await probe(), line);
});

Deno.test("research/lookup_probe.ts --baseline: the read pooled by the relation, and against itself a difference of 0 whose interval spans it", async () => {
  const tool = new URL("../../research/lookup_probe.ts", import.meta.url).pathname;
  const out = await new Deno.Command(Deno.execPath(), { args: ["run", "-A", tool, full, "--baseline", full] })
    .output();
  const text = new TextDecoder().decode(out.stdout);
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  // the quick world's questions read a company's founder and headquarters, each from a document of its own
  const pooled = text.split("\n").find((l) => l.startsWith("all sets, the read by the relation"));
  assert.match(pooled ?? text, / {2}founder: (\d+)\/(\d+) \(.* {2}headquarters: (\d+)\/(\d+) \(/);
  const d = text.match(/difference ([+−])(\d\.\d\d) \[([+−])(\d\.\d\d), ([+−])(\d\.\d\d)\]/);
  assert.ok(d !== null, text);
  assert.equal(d[2], "0.00");
  // the interval spans 0: its low end is negative (or 0 where every read is right or wrong), its high end positive
  assert.ok((d[3] === "−" || d[4] === "0.00") && (d[5] === "+" || d[6] === "0.00"), d[0]);
});

Deno.test("pipeline: resuming a run whose data was rebuilt with another tokenizer fails before any training", async () => {
  const dir = await Deno.makeTempDir();
  const other = tokenizerToJson(buildTokenizer(["words of another data build"]));
  await Deno.writeTextFile(`${dir}/tokenizer.json`, other);
  await Deno.writeTextFile(`${dir}/metrics.jsonl`, "");
  await assert.rejects(
    () => runPipeline({ config, outDir: dir, resume: true }),
    /Cannot resume .*tokenizer.json differs from the run's tokenizer.json/,
  );
  assert.equal(await Deno.readTextFile(`${dir}/tokenizer.json`), other, "the run's tokenizer is kept");
  assert.equal(await Deno.readTextFile(`${dir}/metrics.jsonl`), "", "nothing was trained");
  await Deno.writeTextFile(`${dir}/tokenizer.json`, "{}");
  await assert.rejects(() => runPipeline({ config, outDir: dir, resume: true }), /its tokenizer\.json is damaged/);
  assert.deepEqual([...Deno.readDirSync(dir)].map((e) => e.name).sort(), ["metrics.jsonl", "tokenizer.json"]);
});

// --- interrupts of a real `deno task train`, and resumes that must refuse ---

const trainTool = new URL("../../tools/train.ts", import.meta.url).pathname;
const evalTool = new URL("../../tools/eval.ts", import.meta.url).pathname;
const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The metrics rows on disk (a last line cut short by a kill is not a row yet). */
async function rowsOnDisk(dir: string): Promise<MetricsRow[]> {
  const text = await Deno.readTextFile(`${dir}/metrics.jsonl`).catch(() => "");
  const lines = text.split("\n");
  return lines.filter((l, i) => l.trim() && (i < lines.length - 1 || text.endsWith("\n"))).map((l) => JSON.parse(l));
}

interface TaskRun {
  code: number;
  signal: Deno.Signal | null;
  out: string;
  err: string;
}

/**
 * Runs a task as a user would, optionally sending signals once the run's metrics rows satisfy `when`
 * (polled every 20 ms): a real kill at a moment chosen from outside.
 */
async function task(
  tool: string,
  args: string[],
  options: {
    env?: Record<string, string>;
    watch?: string;
    when?: (rows: MetricsRow[]) => boolean;
    signals?: Deno.Signal[];
  } = {},
): Promise<TaskRun> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", tool, ...args],
    env: { NO_COLOR: "1", MEMPO_FAULT: "", ...options.env },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let finished = false;
  const output = child.output().finally(() => (finished = true));
  if (options.when) {
    while (!finished) {
      await delay(20);
      if (options.when(await rowsOnDisk(options.watch!).catch(() => []))) {
        for (const signal of options.signals ?? ["SIGKILL"]) {
          if (!finished) {
            try {
              child.kill(signal);
            } catch { /* it has just exited */ }
          }
          await delay(300); // two pending SIGINTs would be one
        }
        break;
      }
    }
  }
  const r = await output;
  return {
    code: r.code,
    signal: r.signal,
    out: new TextDecoder().decode(r.stdout),
    err: taskStderr(r.stderr),
  };
}

async function copyTree(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for (const e of Deno.readDirSync(from)) {
    if (e.isDirectory) await copyTree(`${from}/${e.name}`, `${to}/${e.name}`);
    else await Deno.copyFile(`${from}/${e.name}`, `${to}/${e.name}`);
  }
}

/** SHA-256 of every file and directory name under `dir` (hidden ones included). */
async function hashTree(dir: string): Promise<string> {
  const parts: string[] = [];
  const walk = async (d: string, rel: string) => {
    for (const e of [...Deno.readDirSync(d)].sort((a, b) => a.name.localeCompare(b.name))) {
      if (e.isDirectory) {
        parts.push(`${rel}${e.name}/`);
        await walk(`${d}/${e.name}`, `${rel}${e.name}/`);
      } else {
        const digest = await crypto.subtle.digest("SHA-256", await Deno.readFile(`${d}/${e.name}`));
        parts.push(
          `${rel}${e.name} ${[...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("")}`,
        );
      }
    }
  };
  await walk(dir, "");
  return parts.join("\n");
}

const stageStep = (rows: MetricsRow[], stage: string, step: number) =>
  rows.some((r) => r.stage === stage && r.step === step);

Deno.test("deno task train (quick): SIGKILL and SIGINT at ten points of RL and of resume, each resumed: metrics and eval identical to the uninterrupted run", async () => {
  const fullRows = strip(await read(full));
  const dir = `${await Deno.makeTempDir()}/run`;
  const tried: string[] = [];
  const expectPrefix = async (label: string) => {
    const rows = strip(await rowsOnDisk(dir));
    assert.deepEqual(rows, fullRows.slice(0, rows.length), `${label}: the rows on disk are the uninterrupted run's`);
  };
  const state = async (stage: string) => (await readCheckpointRecord(`${dir}/${stage}`))?.state.step as number;
  const step = async (
    label: string,
    args: string[],
    options: Parameters<typeof task>[2],
    expected: "SIGKILL" | 130,
  ) => {
    const r = await task(trainTool, args, options);
    const what = `${label}: code ${r.code}, signal ${r.signal}\n${r.err.slice(-2000)}`;
    if (expected === "SIGKILL") assert.equal(r.signal, "SIGKILL", what);
    else assert.equal(r.code, 130, what);
    assert.doesNotMatch(r.err, /\n\s+at |Uncaught/, what);
    await expectPrefix(label);
    tried.push(`${label} → ${expected === 130 ? "exit 130" : "killed"}`);
    return r;
  };
  const resume = ["--resume", dir];

  // 1. a branch of the reference run's SFT; killed with mempo's step-4 checkpoint written but not yet current
  await step("checkpoint staged (mempo step 4)", ["--from", full, "--out", dir], {
    env: { MEMPO_FAULT: "checkpoint-staged@2" },
  }, "SIGKILL");
  assert.equal(await state("mempo"), 2, "the step-2 checkpoint is still the current one");
  // 2. killed in the resume's own rewrite of metrics.jsonl (written to its temporary, not renamed)
  const before = await Deno.readTextFile(`${dir}/metrics.jsonl`);
  await step("resume: rewrite of metrics.jsonl", resume, { env: { MEMPO_FAULT: "resume-metrics" } }, "SIGKILL");
  assert.equal(await Deno.readTextFile(`${dir}/metrics.jsonl`), before, "metrics.jsonl as it was");
  // 3. killed between the two renames that make mempo's step-4 checkpoint current
  await step("checkpoint swap (mempo step 4)", resume, { env: { MEMPO_FAULT: "checkpoint-swap" } }, "SIGKILL");
  assert.equal(await currentCheckpoint(`${dir}/mempo`), `${dir}/.mempo.next`);
  assert.equal(await state("mempo"), 4, "found under its staging name");
  // 4. killed in the resume's rewrite of config.json (a resume that renames the run)
  const config = await Deno.readTextFile(`${dir}/config.json`);
  await step("resume: rewrite of config.json", [...resume, "--name", "renamed"], {
    env: { MEMPO_FAULT: "resume-config" },
  }, "SIGKILL");
  assert.equal(await Deno.readTextFile(`${dir}/config.json`), config, "config.json as it was");
  // 5. Ctrl-C after an RL step's row: saves a checkpoint and exits 130
  const interrupted = await step("SIGINT after mempo's 3rd step of the resume", resume, {
    env: { MEMPO_FAULT: "rl-step-logged@3:SIGINT" },
  }, 130);
  assert.match(interrupted.out, /stopped; resume with: deno task train --resume/);
  assert.ok((await state("mempo")) >= 7, "the stop saved a checkpoint");
  // 6. killed once a checkpoint is current, before the previous one is removed
  await step("checkpoint swapped, previous not yet removed", resume, {
    env: { MEMPO_FAULT: "checkpoint-swapped@2" },
  }, "SIGKILL");
  // 7. a real SIGKILL from outside, once grpo's step 3 is logged (during its step-4 checkpoint or the next step)
  await step("external SIGKILL at grpo step 3", resume, {
    watch: dir,
    when: (rows) => stageStep(rows, "grpo", 3),
  }, "SIGKILL");
  // 8. Ctrl-C twice from outside (the second, if the first's save is still running, quits at once)
  await step("external SIGINT twice at grpo step 5", resume, {
    watch: dir,
    when: (rows) => stageStep(rows, "grpo", 5),
    signals: ["SIGINT", "SIGINT"],
  }, 130);
  // 9. killed between eval.json and the other evaluation files
  await step("evaluation files", resume, { env: { MEMPO_FAULT: "eval-files" } }, "SIGKILL");
  // 10. the last resume completes
  const done = await task(trainTool, resume);
  assert.equal(done.code, 0, done.err);
  assert.match(done.out, new RegExp(`results in ${dir}/:`));
  assert.deepEqual(strip(await read(dir)), fullRows);
  const a = JSON.parse(await Deno.readTextFile(`${dir}/eval.json`)).rows;
  const b = JSON.parse(await Deno.readTextFile(`${full}/eval.json`)).rows;
  assert.deepEqual(a, b);
  // the episode logs too: the kills and resumes leave the uninterrupted run's (the evaluation's in any cell order)
  const episodeLines = async (run: string, stage: string) =>
    (await Deno.readTextFile(`${run}/episodes/${stage}.jsonl`)).split("\n").filter(Boolean);
  for (const stage of ["mempo", "grpo"]) {
    assert.deepEqual(await episodeLines(dir, stage), await episodeLines(full, stage));
  }
  assert.deepEqual((await episodeLines(dir, "eval")).sort(), (await episodeLines(full, "eval")).sort());
  assert.deepEqual([...Deno.readDirSync(dir)].map((e) => e.name).sort(), [
    "config.json",
    "episodes",
    "eval.json",
    "eval.md",
    "eval_f1.svg",
    "eval_tokens.svg",
    "grpo",
    "mempo",
    "metrics.jsonl",
    "sft",
    "tokenizer.json",
    "train_curves.svg",
    "train_reward.svg",
    "train_signal.svg",
  ], "no hidden staging, previous or temporary file is left");
  console.log(`interrupt points tried:\n  ${tried.join("\n  ")}`);

  // resumes that must refuse: each names what is wrong, exits 1, and changes nothing in the run directory
  const refusals: [string, (run: string) => Promise<void>, RegExp][] = [
    ["damaged RL weights", async (run) => {
      const bytes = await Deno.readFile(`${run}/grpo/policy.safetensors`);
      bytes[bytes.length - 9] = bytes[bytes.length - 9]! ^ 0x40;
      await Deno.writeFile(`${run}/grpo/policy.safetensors`, bytes);
    }, /Cannot resume .*: Checkpoint .*grpo: policy\.safetensors is corrupted/],
    ["a metrics row lost", async (run) => {
      const lines = (await Deno.readTextFile(`${run}/metrics.jsonl`)).split("\n");
      lines.splice(3, 1); // an SFT row
      await Deno.writeTextFile(`${run}/metrics.jsonl`, lines.join("\n"));
    }, /metrics\.jsonl holds 99 sft rows before step 100, its checkpoint covers 100 \(rows lost or repeated\)/],
    ["a metrics line damaged mid-file", async (run) => {
      const lines = (await Deno.readTextFile(`${run}/metrics.jsonl`)).split("\n");
      lines[5] = lines[5]!.slice(0, 20);
      await Deno.writeTextFile(`${run}/metrics.jsonl`, lines.join("\n"));
    }, /metrics\.jsonl line 6 is not JSON/],
    ["sft/config.json states another architecture", async (run) => {
      const record = JSON.parse(await Deno.readTextFile(`${run}/sft/config.json`));
      record.models.policy.architecture.nLayers = 2;
      await Deno.writeTextFile(`${run}/sft/config.json`, JSON.stringify(record));
    }, /sft: model policy has nLayers = 2, expected 4 \(another architecture\)/],
    ["tokenizer.json damaged", async (run) => {
      await Deno.writeTextFile(`${run}/tokenizer.json`, '{"model": {"vocab": {"a": 0');
    }, /Cannot resume .*: .*\/tokenizer\.json is not valid JSON \(/],
    ["config.json with an unknown nested field", async (run) => {
      const c = JSON.parse(await Deno.readTextFile(`${run}/config.json`));
      c.rl.lrr = 1;
      await Deno.writeTextFile(`${run}/config.json`, JSON.stringify(c));
    }, /config\.json: Invalid config: unknown field rl\.lrr/],
  ];
  for (const [label, damage, message] of refusals) {
    const run = `${await Deno.makeTempDir()}/run`;
    await copyTree(dir, run);
    await damage(run);
    const hash = await hashTree(run);
    const r = await task(trainTool, ["--resume", run]);
    assert.equal(r.code, 1, `${label}: ${r.err}`);
    assert.match(r.err, message, label);
    assert.doesNotMatch(r.err, /\n\s+at |Uncaught/, label);
    assert.equal(await hashTree(run), hash, `${label}: the refused resume changed nothing`);
    if (label.startsWith("sft/config.json")) {
      const e = await task(evalTool, [run]);
      assert.equal(e.code, 1, e.err);
      assert.match(e.err, /Cannot load checkpoint .*sft: model policy has nLayers = 2, expected 4/);
      assert.equal(await hashTree(run), hash, "a refused evaluation writes nothing");
    }
  }
});

Deno.test("deno task train --resume: a last metrics or episode line cut short by a kill is dropped, the rest kept as it was", async () => {
  const run = `${await Deno.makeTempDir()}/run`;
  await copyTree(full, run);
  await Deno.writeTextFile(`${run}/metrics.jsonl`, '{"stage":"grpo","step":8,"rollout/rew', { append: true });
  await Deno.writeTextFile(`${run}/episodes/grpo.jsonl`, '{"v":1,"stage":"grpo","step":8,"in', { append: true });
  const r = await task(trainTool, ["--resume", run]);
  assert.equal(r.code, 0, r.err);
  assert.equal(await Deno.readTextFile(`${run}/metrics.jsonl`), await Deno.readTextFile(`${full}/metrics.jsonl`));
  const grpo = await Deno.readTextFile(`${run}/episodes/grpo.jsonl`);
  assert.equal(grpo, await Deno.readTextFile(`${full}/episodes/grpo.jsonl`));
});

Deno.test("deno task eval RUN: the run's own rows again, the training stages' times kept, a torn last metrics line dropped and said; a damaged eval.json refused and kept", async () => {
  const run = `${await Deno.makeTempDir()}/run`;
  await copyTree(full, run);
  const before = JSON.parse(await Deno.readTextFile(`${run}/eval.json`));
  // the last metrics row cut short, as a kill during its append leaves it
  const text = await Deno.readTextFile(`${run}/metrics.jsonl`);
  const lines = text.trimEnd().split("\n");
  await Deno.writeTextFile(`${run}/metrics.jsonl`, `${lines.slice(0, -1).join("\n")}\n${lines.at(-1)!.slice(0, 40)}`);
  const r = await task(evalTool, [run]);
  assert.equal(r.code, 0, r.err);
  const after = JSON.parse(await Deno.readTextFile(`${run}/eval.json`));
  assert.deepEqual(after.rows, before.rows);
  // said once on stderr and in eval.md / eval.json, naming the file and the line; everything from the rows left
  const note = `line ${lines.length} was cut short (an append a kill interrupted) and is dropped: the training ` +
    `figures and summaries use the ${lines.length - 1} rows before it`;
  assert.equal(r.err.trim(), `warning: ${run}/metrics.jsonl ${note}`);
  assert.equal(after.metricsNote, `metrics.jsonl ${note}`);
  assert.ok((await Deno.readTextFile(`${run}/eval.md`)).includes(`\n> metrics.jsonl ${note}.\n`));
  const all = await read(full);
  const kept = all.slice(0, -1);
  assert.notDeepEqual(rlSignal(kept, rlStages(kept)), rlSignal(all, rlStages(all)), "the dropped row counts");
  assert.deepEqual(after.rlSignal, rlSignal(kept, rlStages(kept)));
  for (const [name, figure] of Object.entries(runFigures(after.rows, kept))) {
    if (name.startsWith("train_")) assert.equal(await Deno.readTextFile(`${run}/${name}`), figure.svg, name);
  }
  assert.equal(await Deno.readTextFile(`${full}/metrics.jsonl`), text, "the reference run is untouched");
  // data, sft and each RL stage from the training run, then the evaluation's own
  assert.deepEqual(Object.keys(after.timings), ["data", "sft", "mempo", "grpo", "eval", "groups"]);
  for (const stage of ["data", "sft", "mempo", "grpo"]) {
    assert.equal(after.timings[stage], before.timings[stage], stage);
  }
  await Deno.writeTextFile(`${run}/eval.json`, '{"timings": {"sft": "slow"}}');
  const hash = await hashTree(run);
  const bad = await task(evalTool, [run]);
  assert.equal(bad.code, 1, bad.err);
  assert.match(bad.err, /eval\.json's timings must map stages to seconds, current value of sft is "slow"/);
  assert.doesNotMatch(bad.err, /\n\s+at |Uncaught/);
  assert.equal(await hashTree(run), hash, "a refused evaluation writes nothing");
});

Deno.test("a damaged run: train --resume and eval refuse with one message naming the file, no stack trace, every file of the run and its data byte-identical", async () => {
  // the run and its data copied; the copy's config points at the copied data
  const root = await Deno.makeTempDir();
  const run = `${root}/run`;
  const data = `${root}/data`;
  const source = async () => {
    await Deno.remove(root, { recursive: true });
    await copyTree(full, run);
    await copyTree(dataDir, data);
    const c = JSON.parse(await Deno.readTextFile(`${run}/config.json`));
    await Deno.writeTextFile(`${run}/config.json`, JSON.stringify({ ...c, dataDir: data }, null, 2));
  };
  const cut = async (path: string) => {
    const text = await Deno.readTextFile(path);
    await Deno.writeTextFile(path, text.slice(0, Math.floor(text.length / 2)));
  };
  const mid = Math.floor((await read(full)).length / 2);
  // [what, damage, the message of train --resume, of eval]
  const cases: [string, () => Promise<void>, RegExp, RegExp][] = [
    // the data's manifest: neither built over (train) nor read past (eval)
    [
      "the data's manifest.json not JSON",
      () => cut(`${data}/manifest.json`),
      /^error: .*\/data\/manifest\.json is not valid JSON \(.*\); delete it, and the data is built again/,
      /^error: .*\/data\/manifest\.json is not valid JSON \(.*\); rebuild it with deno task data$/,
    ],
    // weights without their record: refused before metrics.jsonl, config.json or tokenizer.json is rewritten
    [
      "grpo/config.json deleted",
      () => Deno.remove(`${run}/grpo/config.json`),
      /^error: Cannot resume .*: Checkpoint .*\/run\/grpo: it has no config\.json but holds policy\.optimizer\.safetensors, policy\.safetensors; restore its config\.json, or remove .*\/run\/grpo to train that stage again$/,
      /^error: Cannot load checkpoint: no config\.json in .*\/run\/grpo$/,
    ],
    [
      "sft/config.json not JSON",
      () => cut(`${run}/sft/config.json`),
      /^error: Cannot resume .*: Cannot load checkpoint .*\/run\/sft: .*\/run\/sft\/config\.json is not valid JSON \(/,
      /^error: Cannot load checkpoint .*\/run\/sft: .*\/run\/sft\/config\.json is not valid JSON \(/,
    ],
    [
      "a metrics line damaged mid-file",
      async () => {
        const lines = (await Deno.readTextFile(`${run}/metrics.jsonl`)).split("\n");
        lines[mid - 1] = lines[mid - 1]!.slice(0, 30);
        await Deno.writeTextFile(`${run}/metrics.jsonl`, lines.join("\n"));
      },
      new RegExp(`^error: Cannot resume .*: .*/run/metrics\\.jsonl line ${mid} is not JSON \\(`),
      new RegExp(`^error: .*/run/metrics\\.jsonl line ${mid} is not JSON \\(`),
    ],
  ];
  for (const [label, damage, ...messages] of cases) {
    for (const [tool, message] of [[trainTool, messages[0]], [evalTool, messages[1]]] as const) {
      await source();
      await damage();
      const hash = [await hashTree(run), await hashTree(data)];
      const r = await task(tool, tool === trainTool ? ["--resume", run] : [run]);
      const what = `${label}, ${tool.split("/").at(-1)}: code ${r.code}\n${r.err}`;
      assert.equal(r.code, 1, what);
      assert.match(r.err.trim(), message, what);
      assert.equal(r.err.trim().split("\n").length, 1, `one line: ${what}`);
      assert.doesNotMatch(r.err, /\n\s+at |Uncaught|SyntaxError/, what);
      assert.deepEqual([await hashTree(run), await hashTree(data)], hash, `${what}: nothing changed`);
    }
  }
  await Deno.remove(root, { recursive: true });
});

Deno.test("deno task train over a run: refused and the run kept; with --overwrite the new run replaces it", async () => {
  const run = `${await Deno.makeTempDir()}/run`;
  await copyTree(full, run);
  const hash = await hashTree(run);
  const cfg = `${await Deno.makeTempDir()}/data.json`;
  await Deno.writeTextFile(cfg, JSON.stringify({ dataDir }));
  const refused = await task(trainTool, ["--preset", "quick", "--config", cfg, "--out", run]);
  assert.equal(refused.code, 1, refused.err);
  assert.match(refused.err, /it holds a run \(metrics\.jsonl\)\. Continue it with --resume/);
  assert.equal(await hashTree(run), hash, "the run is kept");
  // a branch into its own source is branchRun's refusal, which no --overwrite lifts
  const self = await task(trainTool, ["--from", run, "--out", run, "--overwrite"]);
  assert.equal(self.code, 2, self.err);
  assert.match(self.err, /the new run needs its own directory/);
  assert.equal(await hashTree(run), hash, "the run is kept");
  // --overwrite: the old run goes as the new one starts (killed at its first checkpoint)
  const replaced = await task(trainTool, ["--preset", "quick", "--config", cfg, "--out", run, "--overwrite"], {
    env: { MEMPO_FAULT: "checkpoint-staged" },
  });
  assert.equal(replaced.signal, "SIGKILL", replaced.err);
  assert.equal(await Deno.stat(`${run}/eval.json`).then(() => true, () => false), false, "the old evaluation is gone");
  const stages = new Set((await rowsOnDisk(run)).map((r) => String(r.stage)));
  assert.ok(!stages.has("mempo") && !stages.has("grpo"), `the new run's rows only: ${[...stages]}`);
});
