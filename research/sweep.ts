// `deno task sweep --field rl.memCoef RUN...`: one agent's EM over runs that differ in one config field, each
// evaluated on the same sets (`deno task eval RUN --split valid`, or a compare seed's record): per run the mean over
// the sizes, per setting the mean over its RL seeds and their range, and the setting a rule fixed before the runs keeps
// (research/sweeps/setting_sweep.ts). Prints Markdown; --out also writes it with its JSON.
import { DATA_SPLITS, type DataSplit } from "../lib/data/build.ts";
import { runTask } from "../lib/cli/task.ts";
import { writeFileAtomic } from "../lib/atomic_file.ts";
import { UsageError } from "../lib/errors.ts";
import { readSweepRun, sweepMarkdown, sweepSettings } from "./sweeps/setting_sweep.ts";

const TASK = {
  name: "deno task sweep",
  summary: "one agent's EM over runs that differ in one config field (its RL seeds averaged), and the setting kept: " +
    "the highest mean over the sizes, or the baseline when the best is within --tie of it.",
  positionals: [{
    name: "RUN",
    help: "run directories (runs/NAME, evaluated on the split) or compare seeds (runs/NAME/compare/seed1)",
    variadic: true,
  }],
  flags: {
    field: { type: "string", value: "PATH", default: "rl.memCoef", help: "the config field swept, dotted" },
    agent: {
      type: "string",
      value: "NAMES",
      default: "MemPO",
      help: "the agent read (MemPO, GRPO, PPO), or several comma-separated: their EM per size averaged",
    },
    split: {
      type: "string",
      value: "SPLIT",
      choices: DATA_SPLITS,
      default: "valid",
      help: "the sets read: valid (the choice), test (the report) or train",
    },
    baseline: { type: "string", value: "VALUE", help: "the setting kept when the best mean is within --tie of its" },
    tie: { type: "number", min: 0, default: 0, help: "the margin of the baseline's tie" },
    out: { type: "string", value: "FILE", help: "also write the Markdown to FILE and the JSON beside it (FILE.json)" },
  },
} as const;

await runTask(TASK, async ({ flags, positionals }) => {
  const split = flags.split as DataSplit;
  const agents = flags.agent.split(",").map((a) => a.trim());
  if (agents.includes("")) throw new UsageError(`--agent names an empty agent: "${flags.agent}"`);
  const runs = await Promise.all(
    positionals.map((dir) => readSweepRun(dir, flags.field, agents.length === 1 ? agents[0]! : agents, split)),
  );
  const options = { field: flags.field, agent: agents.join(" and "), tie: flags.tie };
  const result = sweepSettings(runs, flags.baseline === undefined ? options : { ...options, baseline: flags.baseline });
  const md = sweepMarkdown(result);
  console.log(md);
  if (flags.out !== undefined) {
    await writeFileAtomic(flags.out, md);
    await writeFileAtomic(`${flags.out}.json`, JSON.stringify({ split, runs, ...result }, null, 2) + "\n");
    console.log(`wrote ${flags.out} and ${flags.out}.json`);
  }
});
