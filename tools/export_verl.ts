// `deno task export-verl runs/NAME --out DIR`: the run as a folder for verl (data in verl's schema, the policy
// as a Hugging Face Llama model, the Python package mempo_verl, verl overrides, a README).
//   --checkpoint sft|mempo|grpo|ppo (default sft: RL on verl starts where the run's RL started)
//   --data DIR   the data directory (default the run's dataDir); alone, without a run: data, package and
//                overrides from --preset (default "default"), no model/
import { parseArgs } from "node:util";
import { exportVerl } from "../lib/export/export_verl.ts";

const USAGE = "usage: deno task export-verl runs/NAME --out DIR [--checkpoint sft] [--data DIR]\n" +
  "       deno task export-verl --data data/default --out DIR [--preset default]";

function fail(message: string): never {
  console.error(`error: ${message}\n${USAGE}`);
  Deno.exit(2);
}

let parsed;
try {
  parsed = parseArgs({
    args: Deno.args,
    options: {
      out: { type: "string" },
      data: { type: "string" },
      checkpoint: { type: "string" },
      preset: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
    allowPositionals: true,
    strict: true,
  });
} catch (e) {
  fail((e as Error).message);
}
const { values, positionals } = parsed;
if (values.help) {
  console.log(USAGE);
  Deno.exit(0);
}
if (positionals.length > 1) fail(`expected at most one run directory, got ${positionals.join(" ")}`);
if (values.out === undefined) fail("--out DIR is required");
const run = positionals[0];
if (run === undefined && values.data === undefined) fail("give a run directory or --data DIR");
if (run === undefined && values.checkpoint !== undefined) fail("--checkpoint needs a run directory");
try {
  const t0 = performance.now();
  const s = await exportVerl({
    out: values.out,
    ...(run === undefined ? {} : { run }),
    ...(values.data === undefined ? {} : { data: values.data }),
    ...(values.checkpoint === undefined ? {} : { checkpoint: values.checkpoint }),
    ...(values.preset === undefined ? {} : { preset: values.preset }),
  });
  console.log(`wrote ${s.files.length} files to ${s.out} in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  console.log(`verl overrides: ${s.algorithms.map((a) => `config/${a}.overrides`).join(", ")}; see ${s.out}/README.md`);
} catch (e) {
  console.error(`error: ${(e as Error).message}`);
  Deno.exit(1);
}
