// `deno task eval runs/NAME`: evaluate a run's checkpoints again and rewrite its eval.md / eval.json.
import { releaseBackend, setBackend } from "../lib/backend.ts";
import { evalMarkdown } from "../lib/eval/evaluate.ts";
import { DATA_SPLITS, type DataSplit } from "../lib/data/build.ts";
import { readRunConfig } from "../lib/config/run_config.ts";
import { evaluateSavedRun } from "../lib/pipeline/evaluate_saved.ts";
import type { ProgressEvent } from "../lib/pipeline/pipeline.ts";
import { runTask } from "../lib/cli/task.ts";

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
  const progress = ({ stage, info }: ProgressEvent) => {
    if (stage === "eval") console.log(`${info.agent} ${info.objectives} obj: EM ${Number(info.em).toFixed(2)}`);
    else {console.log(
        `${info.agent} ${info.objectives} obj: ${(100 * Number(info.equal)).toFixed(0)} % of groups equal`,
      );}
  };
  const warn = (message: string) => console.error(`warning: ${message}`);
  const { rows, outDir } = await evaluateSavedRun(dir, flags.split as DataSplit, progress, warn);
  console.log(evalMarkdown(rows));
  console.log(`wrote ${outDir}/eval.md, eval.json and its figures`);
  const config = await readRunConfig(dir);
  if (config.backend === "webgpu") await setBackend("wasm").then(() => releaseBackend("webgpu"));
});
