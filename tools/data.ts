// `deno task data`: generate the world, corpus, QA sets and tokenizer into data/<preset> (or --out DIR).
import { buildData } from "../lib/data/build.ts";
import { presetDataDir, PRESETS, resolveConfig } from "../lib/config/experiment.ts";
import { runTask } from "../lib/cli/task.ts";

const TASK = {
  name: "deno task data",
  summary: "generate a preset's data: the world, its search corpus, the training and test questions (Parquet, " +
    "verl's schema) and the tokenizer. deno task train does this itself when the data is missing.",
  flags: {
    preset: {
      type: "string",
      choices: Object.keys(PRESETS),
      default: "default",
      value: "NAME",
      help: "experiment preset",
    },
    seed: { type: "integer", min: 0, defaultText: "the preset's (0)", help: "seed of the world and the questions" },
    out: { type: "string", value: "DIR", defaultText: "data/PRESET", help: "output directory" },
  },
} as const;

await runTask(TASK, async ({ flags }) => {
  const config = resolveConfig(flags.preset, flags.seed === undefined ? {} : { seed: flags.seed });
  const out = flags.out ?? presetDataDir(config.preset);
  const manifest = await buildData(out, config.seed, config.data);
  console.log(`wrote ${out}:`, JSON.stringify(manifest));
});
