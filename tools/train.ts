// `deno task train`: the whole pipeline (data → SFT → RL → evaluation) on the wasm backend by default.
//   --preset quick|default   --algo ppo|grpo|mempo[,…]   --backend NAME   --seed N
//   --out DIR (default runs/<name>)   --resume DIR   --config run.json   --name NAME
//   --from DIR: a new run whose RL starts from DIR's SFT checkpoint (its config, with --config and flags applied)
import { parseArgs } from "node:util";
import cliProgress from "cli-progress";
import { type ConfigOverrides, mergeSections, resolveConfig } from "../lib/config/experiment.ts";
import { type ProgressEvent, runPipeline } from "../lib/pipeline/pipeline.ts";
import { branchRun } from "../lib/pipeline/branch.ts";
import { evalMarkdown } from "../lib/eval/evaluate.ts";
import { releaseBackend, setBackend } from "../lib/backend/backend.ts";

const USAGE =
  "usage: deno task train [--preset quick|default] [--algo mempo,grpo,ppo] [--backend wasm|cpu|webgpu|tensorflow|tensorflow-gpu] [--seed N] [--out DIR] [--resume DIR] [--from DIR] [--config run.json] [--name NAME]";

function fail(message: string): never {
  console.error(`error: ${message}\n${USAGE}`);
  Deno.exit(2);
}

let values;
try {
  ({ values } = parseArgs({
    args: Deno.args,
    options: {
      preset: { type: "string" },
      algo: { type: "string" },
      backend: { type: "string" },
      seed: { type: "string" },
      out: { type: "string" },
      resume: { type: "string" },
      from: { type: "string" },
      config: { type: "string" },
      name: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
    strict: true,
  }));
} catch (e) {
  fail((e as Error).message);
}
if (values.help) {
  console.log(USAGE);
  Deno.exit(0);
}

let overrides: ConfigOverrides & { preset?: string } = {};
const resumeDir = values.resume;
const fromDir = values.from;
if (resumeDir !== undefined && fromDir !== undefined) fail("--resume and --from exclude each other");
const baseRun = resumeDir ?? fromDir;
if (baseRun !== undefined) {
  try {
    overrides = JSON.parse(await Deno.readTextFile(`${baseRun}/config.json`));
  } catch (e) {
    fail(
      `--${resumeDir !== undefined ? "resume" : "from"} ${baseRun}: cannot read its config.json (${
        (e as Error).message
      })`,
    );
  }
}
if (values.config !== undefined) {
  try {
    // section by section, as resolveConfig merges overrides into a preset: {"rl": {"lr": 1e-4}} keeps the rest of rl
    overrides = mergeSections(overrides, JSON.parse(await Deno.readTextFile(values.config))) as typeof overrides;
  } catch (e) {
    fail(`--config ${values.config}: ${(e as Error).message}`);
  }
}
const preset = values.preset ?? overrides.preset ?? "default";
if (values.preset !== undefined && overrides.name === undefined) delete overrides.name;
delete overrides.preset;
if (values.algo !== undefined) {
  overrides.rl = { ...overrides.rl, algorithms: values.algo.split(",").map((s) => s.trim()) as never };
}
if (values.backend !== undefined) overrides.backend = values.backend as never;
if (values.seed !== undefined) {
  const seed = Number(values.seed);
  if (!Number.isInteger(seed) || seed < 0) {
    fail(`--seed must be a non-negative integer, current value is ${values.seed}`);
  }
  overrides.seed = seed;
}
if (values.name !== undefined) overrides.name = values.name;
let config;
try {
  config = resolveConfig(preset, overrides);
} catch (e) {
  fail((e as Error).message);
}
if (values.out === undefined && baseRun === undefined && config.dataDir === "data") {
  config.dataDir = `data/${config.preset}`;
}
const outDir = resumeDir ?? values.out ?? `runs/${config.name}`;

// progress: a bar on a TTY, plain lines otherwise
const tty = Deno.stdout.isTerminal();
const bar = tty
  ? new cliProgress.SingleBar({
    format: "{stage} |{bar}| {value}/{total} | ETA {eta_formatted} | {info}",
    hideCursor: true,
  }, cliProgress.Presets.shades_classic)
  : undefined;
let currentStage = "";
let lastLine = 0;
const fmt = (info: Record<string, number | string>) =>
  Object.entries(info).map(([k, v]) => `${k} ${typeof v === "number" ? v.toFixed(3) : v}`).join(", ");
function onProgress(e: ProgressEvent) {
  if (bar) {
    if (e.stage !== currentStage) {
      if (currentStage !== "") bar.stop();
      currentStage = e.stage;
      bar.start(e.total, e.step, { stage: e.stage.padEnd(5), info: fmt(e.info) });
    } else bar.update(e.step, { info: fmt(e.info) });
    return;
  }
  const now = Date.now();
  if (e.stage !== currentStage || e.step === e.total || now - lastLine > 5000) {
    console.log(`[${e.stage}] ${e.step}/${e.total} ${fmt(e.info)}`);
    lastLine = now;
    currentStage = e.stage;
  }
}

let interrupted = false;
const onSigint = () => {
  if (interrupted) Deno.exit(130);
  interrupted = true;
  console.error("\ninterrupted: saving a checkpoint (Ctrl-C again to quit now)");
};
Deno.addSignalListener("SIGINT", onSigint);

console.log(
  `mempo-lab: preset ${config.preset}, model ${config.model}, algorithms ${
    config.rl.algorithms.join(", ")
  }, backend ${config.backend}, seed ${config.seed} → ${outDir}`,
);
if (fromDir !== undefined) {
  await branchRun(fromDir, outDir, config).catch((e: Error) => fail(e.message));
  console.log(`from ${fromDir}: its SFT checkpoint, warm-up and SFT metrics copied to ${outDir}`);
}
const t0 = performance.now();
const result = await runPipeline({
  config,
  outDir,
  resume: baseRun !== undefined,
  onProgress,
  shouldStop: () => interrupted,
});
bar?.stop();
Deno.removeSignalListener("SIGINT", onSigint);
if (!result.completed) {
  console.log(`stopped; resume with: deno task train --resume ${outDir}`);
  Deno.exit(130);
}
console.log(`\n${evalMarkdown(result.eval!)}\n`);
console.log(
  `stage seconds: ${Object.entries(result.timings).map(([k, v]) => `${k} ${v.toFixed(0)}`).join(", ")}; total ${
    ((performance.now() - t0) / 1000).toFixed(0)
  } s`,
);
console.log(`wrote ${outDir}/eval.md, eval.json, metrics.jsonl`);
// a live GPUDevice at exit leaves the driver's threads racing the exit handlers
if (config.backend === "webgpu") await setBackend("wasm").then(() => releaseBackend("webgpu"));
