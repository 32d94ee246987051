// `deno task train`: the whole pipeline (data → SFT → RL → evaluation) on the wasm backend by default.
// `deno task train --help` lists the flags, `--help-config` every config field.
import cliProgress from "cli-progress";
import { BACKEND_NAMES, releaseBackend, setBackend } from "../lib/backend.ts";
import {
  ALGORITHMS,
  type ConfigOverrides,
  mergeSections,
  presetDataDir,
  PRESETS,
  resolveConfig,
} from "../lib/config/experiment.ts";
import { configHelp } from "../lib/config/config_help.ts";
import { ensureData, type ProgressEvent, runPipeline } from "../lib/pipeline/pipeline.ts";
import { evaluateSavedRun } from "../lib/pipeline/evaluate_saved.ts";
import { startFromRelease } from "../lib/release/from_release.ts";
import { branchRun } from "../lib/pipeline/branch.ts";
import { evalMarkdown } from "../lib/eval/evaluate.ts";
import { runTask } from "../lib/cli/task.ts";
import { readJsonFile } from "../lib/json_file.ts";
import { onInterrupt } from "../lib/cli/interrupt.ts";
import { DataError, UsageError } from "../lib/errors.ts";
import { pathExists } from "../lib/path_exists.ts";
import { resolve } from "node:path";
import { asSaved, readRunConfig } from "../lib/config/run_config.ts";

const TASK = {
  name: "deno task train",
  summary: "the whole pipeline: data → SFT → RL (each algorithm from the SFT weights) → evaluation, " +
    "every stage checkpointed and resumable (Ctrl-C saves and exits 130).",
  flags: {
    preset: {
      type: "string",
      choices: Object.keys(PRESETS),
      value: "NAME",
      defaultText: "default, or the run's with --resume / --from",
      help:
        "experiment preset (default: RL (MemPO, GRPO) from the released SFT policy, ~30 min on 2 cores; quick: the whole pipeline on a small world, ~2 min, for CI)",
    },
    algo: {
      type: "string",
      value: "LIST",
      defaultText: "mempo,grpo",
      help: `RL algorithms, comma-separated: ${ALGORITHMS.join(", ")}`,
    },
    backend: { type: "string", choices: BACKEND_NAMES, value: "NAME", defaultText: "wasm", help: "tensor backend" },
    seed: {
      type: "integer",
      min: 0,
      defaultText: "0",
      help: "seed of the world, SFT and RL (sft.seed, rl.seed: of one stage alone)",
    },
    "sft-seed": {
      type: "integer",
      min: 0,
      defaultText: "--seed's",
      help: "seed of the SFT stage alone (sft.seed): repeats of the recipe on one world",
    },
    name: { type: "string", value: "NAME", defaultText: "the preset's", help: "run name (the output is runs/NAME)" },
    out: { type: "string", value: "DIR", defaultText: "runs/NAME", help: "output directory" },
    config: {
      type: "string",
      value: "FILE",
      help: 'JSON of config fields, merged section by section ({"rl": {"lr": 1e-4}}); see --help-config',
    },
    resume: {
      type: "string",
      value: "DIR",
      help: "continue the run in DIR from its checkpoints (its config, flags applied)",
    },
    from: {
      type: "string",
      value: "DIR",
      help: "a new run whose RL starts from DIR's finished SFT checkpoint (DIR's config, --config and flags applied)",
    },
    "rl-episodes": {
      type: "integer",
      min: 0,
      value: "N",
      defaultText: "all",
      help:
        "episodes of each RL step kept in RUN/episodes/<algorithm>.jsonl for deno task view (the first groups; 0: none)",
    },
    overwrite: {
      type: "boolean",
      help: "replace a run already in the output directory (without it such a run is kept and the task refused)",
    },
    "from-scratch": {
      type: "boolean",
      help: "train SFT in the run (warm-up, SFT) instead of starting RL from the released SFT policy (config release)",
    },
    stage: {
      type: "string",
      value: "STAGE",
      choices: ["sft"],
      help: "sft: the SFT recipe alone, from scratch (data, warm-up, SFT), then the SFT policy on the validation " +
        "sets (RUN/valid/eval.md): what deno task release ships",
    },
    "help-config": { type: "boolean", help: "list every config field with its type, defaults and meaning, and exit" },
  },
  notes: [
    "examples:",
    "  deno task train --preset quick",
    "  deno task train --resume runs/quick",
    "  deno task train --from runs/quick --name lr3 --config lr.json",
    "  deno task train --stage sft --sft-seed 1 --name sft-r1   # the SFT recipe; then deno task release runs/sft-r*",
    "",
    "exit codes: 0 done, 130 interrupted (resumable), 2 bad flags or config, 1 bad or missing files.",
  ].join("\n"),
} as const;

await runTask(TASK, async ({ flags }) => {
  if (flags["help-config"]) {
    console.log(configHelp());
    return 0;
  }
  const resumeDir = flags.resume;
  const fromDir = flags.from;
  if (resumeDir !== undefined && fromDir !== undefined) throw new UsageError("--resume and --from exclude each other");
  if (resumeDir !== undefined && flags.out !== undefined) {
    throw new UsageError("--resume continues the run where it is: --out does not apply");
  }
  if (resumeDir !== undefined && flags.overwrite) {
    throw new UsageError("--resume continues a run: --overwrite does not apply");
  }
  const baseRun = resumeDir ?? fromDir;
  let overrides: ConfigOverrides & { preset?: string } = {};
  // the run's own config must be valid as it stands: a damaged one is the file's fault (exit 1), not the flags'
  if (baseRun !== undefined) overrides = { ...(await readRunConfig(baseRun)) };
  if (flags.config !== undefined) {
    const file = await readJsonFile(flags.config, { what: "--config file" });
    if (typeof file !== "object" || file === null || Array.isArray(file)) {
      throw new UsageError(
        `--config ${flags.config} must hold a JSON object of config fields, current value is ${JSON.stringify(file)}`,
      );
    }
    // section by section, as resolveConfig merges overrides into a preset: {"rl": {"lr": 1e-4}} keeps the rest of rl
    overrides = mergeSections(overrides, file as Record<string, unknown>) as typeof overrides;
  }
  const preset = flags.preset ?? overrides.preset ?? "default";
  if (flags.preset !== undefined && overrides.name === undefined) delete overrides.name;
  delete overrides.preset;
  if (flags.algo !== undefined) {
    overrides.rl = { ...overrides.rl, algorithms: flags.algo.split(",").map((s) => s.trim()) as never };
  }
  if (flags.backend !== undefined) overrides.backend = flags.backend as never;
  if (flags.seed !== undefined) overrides.seed = flags.seed;
  if (flags["sft-seed"] !== undefined) overrides.sft = { ...overrides.sft, seed: flags["sft-seed"] };
  if (flags.name !== undefined) overrides.name = flags.name;
  const sftOnly = flags.stage === "sft";
  if ((flags["from-scratch"] || sftOnly) && baseRun !== undefined) {
    throw new UsageError(
      `--${sftOnly ? "stage sft" : "from-scratch"} starts a new run: --resume and --from do not apply`,
    );
  }
  // the SFT stage alone runs no RL
  if (sftOnly) overrides.rl = { ...overrides.rl, algorithms: [] };
  // a run read back keeps unset what it left unset, whatever its preset sets today
  const resolved = resolveConfig(preset, overrides);
  const config = baseRun !== undefined ? asSaved(resolved, overrides) : resolved;
  if (flags["from-scratch"] || sftOnly) delete config.release; // the recipe trains its own SFT
  if (flags.out === undefined && baseRun === undefined && config.dataDir === "data") {
    config.dataDir = presetDataDir(config.preset);
  }
  const outDir = resumeDir ?? flags.out ?? `runs/${config.name}`;
  // a new run in a directory that holds one would replace it (runPipeline, branchRun): only when asked to. A branch into
  // its own source is branchRun's to refuse.
  const intoSource = fromDir !== undefined && resolve(fromDir) === resolve(outDir);
  if (resumeDir === undefined && !flags.overwrite && !intoSource && (await pathExists(`${outDir}/metrics.jsonl`))) {
    const elsewhere = flags.out !== undefined
      ? "write the new one elsewhere with --out"
      : "name the new one with --name";
    throw new DataError(
      `Cannot start a run in ${outDir}: it holds a run (metrics.jsonl). Continue it with --resume ${outDir}, ` +
        `${elsewhere}, or replace it with --overwrite`,
    );
  }

  // progress: on a TTY a bar (stage, step, ETA, the latest reward or loss), plain lines otherwise
  const tty = Deno.stdout.isTerminal();
  const bar = tty
    ? new cliProgress.SingleBar({
      format: "{stage} |{bar}| step {value}/{total} | ETA {eta_formatted} | {info}",
      hideCursor: true,
      etaBuffer: 20,
    }, cliProgress.Presets.shades_classic)
    : undefined;
  let currentStage = "";
  let lastLine = 0;
  const fmt = (info: Record<string, number | string>) =>
    Object.entries(info).map(([k, v]) => `${k} ${typeof v === "number" ? v.toFixed(3) : v}`).join(", ");
  const onProgress = (e: ProgressEvent) => {
    if (bar) {
      if (e.stage !== currentStage) {
        if (currentStage !== "") bar.stop();
        currentStage = e.stage;
        bar.start(e.total, e.step, { stage: e.stage.padEnd(8), info: fmt(e.info) });
      } else bar.update(e.step, { info: fmt(e.info) });
      return;
    }
    const now = Date.now();
    if (e.stage !== currentStage || e.step === e.total || now - lastLine > 5000) {
      console.log(`[${e.stage}] ${e.step}/${e.total} ${fmt(e.info)}`);
      lastLine = now;
      currentStage = e.stage;
    }
  };

  const interrupt = onInterrupt("saving a checkpoint");

  console.log(
    `mempo-lab: preset ${config.preset}, model ${config.model}, algorithms ${
      config.rl.algorithms.join(", ")
    }, backend ${config.backend}, seed ${config.seed}${
      config.sft.seed === undefined ? "" : ` (SFT seed ${config.sft.seed})`
    } → ${outDir}`,
  );
  if (fromDir !== undefined) {
    await branchRun(fromDir, outDir, config);
    console.log(`from ${fromDir}: its SFT checkpoint, warm-up and SFT metrics copied to ${outDir}`);
  }
  const fromRelease = baseRun === undefined && config.release !== undefined;
  if (fromRelease) {
    await setBackend(config.backend);
    await ensureData(config);
    const tokenizerText = await Deno.readTextFile(`${config.dataDir}/tokenizer.json`);
    const manifest = await startFromRelease(config.release!, outDir, config, tokenizerText);
    console.log(
      `from the released SFT policy in ${config.release} (SFT seed ${manifest.seed}, commit ${manifest.commit}; every ` +
        `file's sha256 checked): RL starts from it`,
    );
  }
  const t0 = performance.now();
  const result = await runPipeline({
    config,
    outDir,
    resume: baseRun !== undefined || fromRelease,
    onProgress,
    shouldStop: interrupt.stopped,
    evaluate: !sftOnly,
    rlEpisodes: flags["rl-episodes"],
  });
  bar?.stop();
  interrupt.dispose();
  if (!result.completed) {
    console.log(`stopped; resume with: deno task train --resume ${outDir}`);
    return 130;
  }
  if (sftOnly) {
    // the recipe's product is judged on the validation sets; the test sets only report (deno task eval RUN)
    const { rows, outDir: validDir } = await evaluateSavedRun(
      outDir,
      "valid",
      onProgress,
      (message) => console.error(`warning: ${message}`),
    );
    bar?.stop();
    console.log(`\n${evalMarkdown(rows)}\n`);
    console.log(
      `the SFT policy on the validation sets: ${validDir}/eval.md; release it with deno task release ${outDir}`,
    );
    return 0;
  }
  console.log(`\n${evalMarkdown(result.eval!)}\n`);
  console.log(
    `stage seconds: ${Object.entries(result.timings).map(([k, v]) => `${k} ${v.toFixed(0)}`).join(", ")}; total ${
      ((performance.now() - t0) / 1000).toFixed(0)
    } s`,
  );
  const results: [string, string][] = [
    ["eval.md", "the table above (EM / F1 / total tokens / peak context), the research check"],
    ["eval_f1.svg, eval_tokens.svg", "F1 and tokens against the number of objectives"],
    ["eval.json", "every evaluation row"],
    ["metrics.jsonl", "one row per training step"],
    ["episodes/", "the RL steps' and the evaluation's episodes (deno task view shows them)"],
    [
      ["sft", ...config.rl.algorithms].map((s) => `${s}/`).join(", "),
      `checkpoints (deno task eval ${outDir} evaluates them again; deno task diagnose ${outDir} probes them)`,
    ],
  ];
  const width = Math.max(...results.map(([f]) => f.length)) + 2;
  console.log([`results in ${outDir}/:`, ...results.map(([f, what]) => `  ${f.padEnd(width)}${what}`)].join("\n"));
  // a live GPUDevice at exit leaves the driver's threads racing the exit handlers
  if (config.backend === "webgpu") await setBackend("wasm").then(() => releaseBackend("webgpu"));
  return 0;
});
