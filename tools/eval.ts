// `deno task eval runs/NAME`: evaluate a run's checkpoints again and rewrite its eval.md / eval.json.
import { releaseBackend, setBackend } from "../lib/backend/backend.ts";
import type { Algorithm } from "../lib/config/experiment.ts";
import { evalMarkdown } from "../lib/eval/evaluate.ts";
import { DATA_SPLITS, type DataSplit, splitDir } from "../lib/data/build.ts";
import { readMetricsLog, tornLineNote } from "../lib/train/metrics_log.ts";
import { readRunConfig } from "../lib/config/run_config.ts";
import { evaluateRun } from "../lib/pipeline/evaluate_run.ts";
import { trainingTimings } from "../lib/pipeline/eval_json.ts";
import { openRun } from "../lib/pipeline/open_run.ts";
import { runTask } from "../lib/cli/task.ts";
import type { Model } from "../lib/model/params.ts";

const TASK = {
  name: "deno task eval",
  summary: "evaluate a run's SFT and RL checkpoints again on its test sets (or --split valid / train: its " +
    "validation sets, or training questions joined to the test sizes) with its config's eval section, and rewrite " +
    "its eval.md, eval.json and plots (RUN/valid/, RUN/train/ for the other splits). Every checkpoint is checked " +
    "first: its files' hashes, and its " +
    "architecture against its weights and against the run's config. A last metrics.jsonl line that a kill cut " +
    "short is dropped, and said on stderr and in eval.md; a damaged line before it is refused.",
  positionals: [{ name: "RUN", help: "a run directory (runs/NAME) written by deno task train" }],
  flags: {
    split: {
      type: "string",
      value: "SPLIT",
      choices: DATA_SPLITS,
      default: "test",
      help: "the sets evaluated: test (files in RUN), valid (data.validCount's validation sets) or train (the " +
        "training questions' objectives joined to the test sizes); files in RUN/valid or RUN/train",
    },
  },
} as const;

await runTask(TASK, async ({ flags, positionals }) => {
  const dir = positionals[0]!;
  const split = flags.split as DataSplit;
  const outDir = splitDir(dir, split);
  const config = await readRunConfig(dir);
  // the training curves come from the run's log: a damaged one is refused before minutes of evaluation; a last line
  // a kill cut short is dropped, and said here and in eval.md (the figures and summaries have one row less)
  const log = await readMetricsLog(`${dir}/metrics.jsonl`);
  if (log.torn !== undefined) console.error(`warning: ${tornLineNote(`${dir}/metrics.jsonl`, log)}`);
  // the training stages' times live in the eval.json this run rewrites: kept (a damaged one is refused here too)
  const timings = await trainingTimings(outDir);
  const { data, load: loadStage } = await openRun(dir, config, { split });
  await Deno.mkdir(outDir, { recursive: true });
  const models: Model[] = [];
  const load = async (name: string) => {
    const m = await loadStage(name);
    models.push(m);
    return m;
  };
  let sft: Model;
  const trained = new Map<Algorithm, Model>();
  try {
    sft = await load("sft");
    for (const a of config.rl.algorithms) trained.set(a, await load(a));
  } catch (e) {
    for (const m of models) m.dispose();
    throw e;
  }
  // evaluateRun owns the models from here (disposed whatever happens)
  const { rows } = await evaluateRun({
    runDir: dir,
    outDir,
    config,
    data,
    sft,
    trained,
    metrics: log.rows,
    ...(log.torn === undefined ? {} : { metricsNote: tornLineNote("metrics.jsonl", log) }),
    timings,
    onProgress: ({ stage, info }) => {
      if (stage === "eval") console.log(`${info.agent} ${info.objectives} obj: EM ${Number(info.em).toFixed(2)}`);
      else {console.log(
          `${info.agent} ${info.objectives} obj: ${(100 * Number(info.equal)).toFixed(0)} % of groups equal`,
        );}
    },
  });
  console.log(evalMarkdown(rows));
  console.log(`wrote ${outDir}/eval.md, eval.json and its figures`);
  // a live GPUDevice at exit leaves the driver's threads racing the exit handlers
  if (config.backend === "webgpu") await setBackend("wasm").then(() => releaseBackend("webgpu"));
});
