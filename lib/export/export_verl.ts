/**
 * `deno task export-verl`: a run (or a data directory) as a folder a verl
 * user copies to a cluster: data, the policy as a Hugging Face model, the
 * Python package `mempo_verl`, verl overrides and a README.
 *
 * @module
 */
import { type Algorithm, type ExperimentConfig, resolveConfig, validateConfig } from "../config/experiment.ts";
import { loadCheckpoint } from "../model/checkpoint.ts";
import { tokenizerFromJson } from "../text/tokenizer.ts";
import { writeHfModel } from "./hf_model.ts";
import { exportReadme } from "./export_readme.ts";
import { exportVerlData } from "./verl_data.ts";
import { mempoJson, notCarried, renderOverrides, VERL_VERSION, verlOverrides } from "./verl_config.ts";

/** Options of {@linkcode exportVerl}. */
export interface ExportVerlOptions {
  /** The export folder (created; an existing non-empty folder must be an earlier export). */
  out: string;
  /** A run directory (`runs/NAME`); its config, tokenizer and checkpoint. */
  run?: string;
  /** The data directory; default the run's `dataDir` (required without `run`). */
  data?: string;
  /** The checkpoint of the run exported as `model/`. @default "sft" */
  checkpoint?: string;
  /** Preset of the hyperparameters when exporting a data directory alone. @default "default" */
  preset?: string;
}

/** What {@linkcode exportVerl} wrote. */
export interface ExportVerlSummary {
  /** The export folder. */
  out: string;
  /** Files written, relative to it. */
  files: string[];
  /** The algorithms with an overrides file. */
  algorithms: Algorithm[];
}

/** The Python files copied from this package's `python/` folder. */
export const PYTHON_FILES: readonly string[] = Object.freeze([
  "reward_fn.py",
  "mempo_verl/__init__.py",
  "mempo_verl/_js.py",
  "mempo_verl/compute_score.py",
  "mempo_verl/estimator.py",
  "mempo_verl/format.py",
  "mempo_verl/grpo.py",
  "mempo_verl/memory_advantage.py",
  "mempo_verl/memory_reward.py",
  "mempo_verl/options.py",
  "mempo_verl/reward.py",
  "mempo_verl/search_tool.py",
  "mempo_verl/verl_hooks.py",
]);

const PYTHON_ROOT = new URL("../../python/", import.meta.url);

const TOOL_CONFIG = `# verl multi-turn tool config (actor_rollout_ref.rollout.multi_turn.tool_config_path)
tools:
  - class_name: mempo_verl.verl_hooks.MempoSearchTool
    config:
      type: native
      retrieval_service_url: http://127.0.0.1:8000/retrieve
      topk: 3
    tool_schema:
      type: function
      function:
        name: search
        description: BM25 search over the exported corpus; returns the top documents in an <information> block.
        parameters:
          type: object
          properties:
            query:
              type: string
              description: The words to search for.
          required:
            - query
`;

const RUN_SH = `#!/usr/bin/env bash
# usage: bash config/run.sh ALGORITHM [more key=value overrides]   (ALGORITHM: a config/*.overrides file)
set -euo pipefail
export MEMPO_EXPORT="$(cd "$(dirname "\${BASH_SOURCE[0]}")/.." && pwd)"
export PYTHONPATH="$MEMPO_EXPORT\${PYTHONPATH:+:$PYTHONPATH}"
algorithm="\${1:?usage: bash config/run.sh ALGORITHM [key=value ...]}"
shift
overrides="$MEMPO_EXPORT/config/$algorithm.overrides"
[ -f "$overrides" ] || { echo "no $overrides" >&2; exit 2; }
# one override per line: comments dropped, the export's absolute path put for \\\${oc.env:MEMPO_EXPORT} (no spaces in it)
case "$MEMPO_EXPORT" in *[[:space:]]*) echo "the export's path must have no spaces: $MEMPO_EXPORT" >&2; exit 2 ;; esac
set -f  # the values hold [ ] lists: no globbing
# shellcheck disable=SC2046
exec python3 -m verl.trainer.main_ppo $(grep -v '^[[:space:]]*#' "$overrides" | grep -v '^[[:space:]]*$' |
  sed "s#\\\${oc.env:MEMPO_EXPORT}#$MEMPO_EXPORT#g") "$@"
`;

async function isEmptyOrExport(dir: string): Promise<boolean> {
  try {
    const names = [];
    for await (const e of Deno.readDir(dir)) names.push(e.name);
    return names.length === 0 || names.includes("export.json");
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return true;
    throw e;
  }
}

async function readRunConfig(run: string): Promise<ExperimentConfig> {
  let config: ExperimentConfig;
  try {
    config = JSON.parse(await Deno.readTextFile(`${run}/config.json`));
  } catch (e) {
    throw new Error(`Cannot export ${run}: cannot read its config.json (${(e as Error).message})`);
  }
  return validateConfig(config);
}

/**
 * Writes the export folder.
 *
 * ```text
 * out/data/     train, test_{k}obj (verl schema), corpus.parquet, corpus.jsonl
 * out/model/    the run's checkpoint as a Hugging Face LlamaForCausalLM folder (runs only)
 * out/mempo_verl/, out/reward_fn.py   the Python package
 * out/config/   <algorithm>.overrides, mempo.json, tool_config.yaml, run.sh
 * out/README.md, out/export.json
 * ```
 *
 * Source: verl v0.7.0 (`main_ppo` overrides, custom reward file, tool config); Hugging Face model folders.
 *
 * @param options Run or data directory, output folder, checkpoint.
 * @returns What was written.
 *
 * @example A data directory alone
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildData } from "../data/build.ts";
 * import { exportVerl } from "./export_verl.ts";
 *
 * const data = await Deno.makeTempDir();
 * await buildData(data, 1, { trainCount: 4, testCount: 2, testObjectives: [1] });
 * const out = `${await Deno.makeTempDir()}/export`;
 * const s = await exportVerl({ data, out });
 * assert.ok(s.files.includes("mempo_verl/compute_score.py") && s.files.includes("config/mempo.overrides"));
 * assert.ok(!s.files.some((f) => f.startsWith("model/")));
 * ```
 */
export async function exportVerl(options: ExportVerlOptions): Promise<ExportVerlSummary> {
  const { out, run, checkpoint = "sft", preset = "default" } = options;
  if (run === undefined && options.data === undefined) {
    throw new TypeError("Cannot export: give a run directory or a data directory (options.run or options.data)");
  }
  if (!(await isEmptyOrExport(out))) {
    throw new Error(`Cannot export to ${out}: the folder is not empty and holds no earlier export (export.json)`);
  }
  const config = run === undefined ? resolveConfig(preset) : await readRunConfig(run);
  const dataDir = options.data ?? config.dataDir;
  await Deno.mkdir(out, { recursive: true });
  const files: string[] = [];

  const data = await exportVerlData(dataDir, out);
  files.push(...data.files);

  if (run !== undefined) {
    const dataTokenizer = await Deno.readTextFile(`${dataDir}/tokenizer.json`);
    const runTokenizer = await Deno.readTextFile(`${run}/tokenizer.json`).catch(() => dataTokenizer);
    if (runTokenizer !== dataTokenizer) {
      throw new Error(
        `Cannot export ${run}: ${dataDir}/tokenizer.json differs from the run's tokenizer.json (pass the run's data with --data)`,
      );
    }
    const loaded = await loadCheckpoint(`${run}/${checkpoint}`, { trainable: false });
    const policy = loaded.models.policy;
    if (policy === undefined) throw new Error(`Cannot export ${run}/${checkpoint}: the checkpoint holds no policy`);
    try {
      const names = await writeHfModel(`${out}/model`, policy, tokenizerFromJson(runTokenizer));
      files.push(...names.map((n) => `model/${n}`));
    } finally {
      for (const m of Object.values(loaded.models)) m.dispose();
    }
  }

  for (const f of PYTHON_FILES) {
    const text = await Deno.readTextFile(new URL(f, PYTHON_ROOT));
    await Deno.mkdir(`${out}/${f.split("/").slice(0, -1).join("/") || "."}`, { recursive: true });
    await Deno.writeTextFile(`${out}/${f}`, text);
    files.push(f);
  }

  await Deno.mkdir(`${out}/config`, { recursive: true });
  const algorithms = [...new Set<Algorithm>(run === undefined ? ["mempo", "grpo", "ppo"] : config.rl.algorithms)];
  for (const a of algorithms) {
    const text = renderOverrides(
      verlOverrides(config, a, { ...data, trainCount: data.trainCount }),
      notCarried(config, a),
    );
    await Deno.writeTextFile(
      `${out}/config/${a}.overrides`,
      `# verl ${VERL_VERSION} overrides for ${a}, from ${run ?? `preset ${preset}`}\n${text}`,
    );
    files.push(`config/${a}.overrides`);
  }
  await Deno.writeTextFile(`${out}/config/mempo.json`, JSON.stringify(mempoJson(config), null, 2) + "\n");
  await Deno.writeTextFile(`${out}/config/tool_config.yaml`, TOOL_CONFIG);
  await Deno.writeTextFile(`${out}/config/run.sh`, RUN_SH, { mode: 0o755 });
  files.push("config/mempo.json", "config/tool_config.yaml", "config/run.sh");

  await Deno.writeTextFile(
    `${out}/README.md`,
    exportReadme({
      verlVersion: VERL_VERSION,
      source: run ?? dataDir,
      ...(run === undefined ? {} : { checkpoint }),
      algorithms,
      counts: { train: data.trainCount, tests: data.testCounts, documents: data.documents },
    }),
  );
  files.push("README.md");
  const manifest = {
    format: "mempo-lab/verl-export@1",
    verl_version: VERL_VERSION,
    source: run ?? dataDir,
    checkpoint: run === undefined ? null : checkpoint,
    data: dataDir,
    algorithms,
    sizes: {
      maxPromptTokens: data.maxPromptTokens,
      maxToolTokens: data.maxToolTokens,
      maxToolChars: data.maxToolChars,
    },
    files: [...files, "export.json"],
  };
  await Deno.writeTextFile(`${out}/export.json`, JSON.stringify(manifest, null, 2) + "\n");
  files.push("export.json");
  return { out, files, algorithms };
}
