// `deno task export-verl runs/NAME --out DIR`: the run as a folder for verl (data in verl's schema, the policy
// as a Hugging Face Llama model, the Python package mempo_verl, verl overrides, a README).
import { exportVerl } from "../lib/export/export_verl.ts";
import { ALGORITHMS, PRESETS } from "../lib/config/experiment.ts";
import { runTask } from "../lib/cli/task.ts";
import { UsageError } from "../lib/errors.ts";

const TASK = {
  name: "deno task export-verl",
  summary: "a run (or a data directory alone) as a folder a verl user copies to a cluster: the data in verl's " +
    "schema, the policy as a Hugging Face Llama model, the Python package mempo_verl, verl overrides per algorithm " +
    "and a README. Every check runs before anything is written; an earlier export in --out is replaced whole.",
  positionals: [{
    name: "RUN",
    help: "a run directory (runs/NAME); without it, --data exports a data directory",
    optional: true,
  }],
  flags: {
    out: { type: "string", value: "DIR", help: "the export folder (required; empty, absent or an earlier export)" },
    checkpoint: {
      type: "string",
      choices: ["sft", ...ALGORITHMS],
      value: "NAME",
      defaultText: "sft (RL on verl starts where the run's RL started)",
      help: "the run's checkpoint exported as model/ (one of the run's stages)",
    },
    data: { type: "string", value: "DIR", defaultText: "the run's dataDir", help: "the data directory" },
    preset: {
      type: "string",
      choices: Object.keys(PRESETS),
      value: "NAME",
      defaultText: "default",
      help: "hyperparameters of the overrides when exporting a data directory alone",
    },
  },
  notes: [
    "examples:",
    "  deno task export-verl runs/default --out export/default",
    "  deno task export-verl runs/default --out export/mempo --checkpoint mempo",
    "  deno task export-verl --data data/default --out export/data-only",
    "",
    "exit codes: 0 written, 2 bad flags, 1 bad or missing files.",
  ].join("\n"),
} as const;

await runTask(TASK, async ({ flags, positionals }) => {
  if (flags.out === undefined) throw new UsageError("--out DIR is required");
  const run = positionals[0];
  if (run === undefined && flags.data === undefined) throw new UsageError("give a run directory or --data DIR");
  if (run === undefined && flags.checkpoint !== undefined) throw new UsageError("--checkpoint needs a run directory");
  if (run !== undefined && flags.preset !== undefined) {
    throw new UsageError("--preset applies to a data directory alone: a run's export uses its own config");
  }
  const t0 = performance.now();
  const s = await exportVerl({
    out: flags.out,
    ...(run === undefined ? {} : { run }),
    ...(flags.data === undefined ? {} : { data: flags.data }),
    ...(flags.checkpoint === undefined ? {} : { checkpoint: flags.checkpoint }),
    ...(flags.preset === undefined ? {} : { preset: flags.preset }),
  });
  console.log(`wrote ${s.files.length} files to ${s.out} in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  console.log(`verl overrides: ${s.algorithms.map((a) => `config/${a}.overrides`).join(", ")}; see ${s.out}/README.md`);
});
