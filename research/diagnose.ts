// `deno task diagnose runs/NAME [--split test|valid|train]`: the teacher-forced diagnostics of a run's SFT and RL
// policies (where they go wrong on the scripted teacher's turns: copying, each step of a state memory, whole turns
// off the teacher's path), written to RUN/diagnostics.md and RUN/diagnostics.json. A research instrument of this task
// design: the evaluation does not run it.
import { DATA_SPLITS, type DataSplit } from "../lib/data/build.ts";
import { runTask } from "../lib/cli/task.ts";
import { diagnoseRun } from "./diagnostics/diagnose_run.ts";

const TASK = {
  name: "deno task diagnose",
  summary: "score a run's SFT and RL checkpoints teacher-forced on the scripted teacher's turns of its test sets " +
    "(memory context, the eval section's questions): where each policy goes wrong. Writes RUN/diagnostics.md and " +
    "RUN/diagnostics.json (RUN/valid/, RUN/train/ for the other splits).",
  positionals: [{ name: "RUN", help: "a run directory (runs/NAME) written by deno task train" }],
  flags: {
    split: {
      type: "string",
      value: "SPLIT",
      choices: DATA_SPLITS,
      default: "test",
      help: "the sets scored: test, valid or train (as deno task eval)",
    },
  },
} as const;

await runTask(TASK, async ({ flags, positionals }) => {
  const { outDir } = await diagnoseRun(positionals[0]!, flags.split as DataSplit);
  console.log(`wrote ${outDir}/diagnostics.md and diagnostics.json`);
});
