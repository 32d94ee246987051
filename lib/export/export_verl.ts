/**
 * `deno task export-verl`: a run (or a data directory) as a folder a verl
 * user copies to a cluster: data, the policy as a Hugging Face model, the
 * Python package `mempo_verl`, verl overrides and a README.
 *
 * @module
 */
import { type Algorithm, ALGORITHMS, type ExperimentConfig, resolveConfig } from "../config/experiment.ts";
import { readRunConfig } from "../config/run_config.ts";
import { checkRunTokenizer } from "../data/run_tokenizer.ts";
import { loadCheckpoint, verifyCheckpoint } from "../model/checkpoint.ts";
import { type ModelConfig, modelPreset } from "../model/config.ts";
import { type Tokenizer, tokenizerFromJson } from "../text/tokenizer.ts";
import { writeFileAtomic } from "../atomic_file.ts";
import { DataError, UsageError } from "../errors.ts";
import { writeHfModel } from "./hf_model.ts";
import { exportReadme } from "./export_readme.ts";
import { exportVerlData } from "./verl_data.ts";
import { mempoJson, notCarried, renderOverrides, VERL_VERSION, verlOverrides } from "./verl_config.ts";
import { pathExists } from "../path_exists.ts";

/** The algorithms a data directory alone is exported for: every one, MemPO first (mempo, grpo, ppo). */
const ALGORITHMS_EXPORTED: readonly Algorithm[] = [...ALGORITHMS].reverse();

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
  "mempo_verl/answer_score.py",
  "mempo_verl/compute_score.py",
  "mempo_verl/estimator.py",
  "mempo_verl/grpo.py",
  "mempo_verl/memory_advantage.py",
  "mempo_verl/memory_reward.py",
  "mempo_verl/options.py",
  "mempo_verl/search_tool.py",
  "mempo_verl/turn_format.py",
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

/** Whether `dir` may receive an export: absent, empty, or an earlier export (it has `export.json`). */
async function isEmptyOrExport(dir: string): Promise<boolean> {
  try {
    const names = [];
    for await (const e of Deno.readDir(dir)) names.push(e.name);
    return names.length === 0 || names.includes("export.json");
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return true;
    throw new DataError(`Cannot export to ${dir}: ${(e as Error).message}`);
  }
}

/** The hidden directories beside `out` that an export is built in and that the previous export is moved to. */
function besideOut(out: string): { staging: string; previous: string } {
  const d = out.replace(/\/+$/, "");
  const slash = d.lastIndexOf("/");
  const parent = slash < 0 ? "." : d.slice(0, slash) || "/";
  const base = d.slice(slash + 1);
  return { staging: `${parent}/.${base}.export-${Deno.pid}`, previous: `${parent}/.${base}.previous-${Deno.pid}` };
}

async function removeIfPresent(path: string): Promise<void> {
  await Deno.remove(path, { recursive: true }).catch((e) => {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
  });
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
 * Every check runs before anything is written: the run's config, its
 * tokenizer against the data's (`checkRunTokenizer`), `checkpoint` among its
 * stages (`sft` and `rl.algorithms`) and the checkpoint whole, of the run's
 * architecture (`verifyCheckpoint`). The export is then built in a hidden
 * directory beside `out` and moved into place by renames, so a refused or
 * failed export leaves an earlier one in `out` as it was.
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
  const { out, run, preset = "default" } = options;
  // every check first: a refused export writes nothing, and an earlier export in `out` stays as it was
  if (run === undefined && options.data === undefined) {
    throw new UsageError("Cannot export: give a run directory or a data directory (--data DIR)");
  }
  if (run === undefined && options.checkpoint !== undefined) {
    throw new UsageError(`Cannot export checkpoint ${options.checkpoint}: a checkpoint needs a run directory`);
  }
  if (!(await isEmptyOrExport(out))) {
    throw new DataError(`Cannot export to ${out}: the folder is not empty and holds no earlier export (export.json)`);
  }
  const config = run === undefined ? resolveConfig(preset) : await readRunConfig(run);
  const checkpoint = options.checkpoint ?? "sft";
  const stages = ["sft", ...config.rl.algorithms];
  if (run !== undefined && !stages.includes(checkpoint)) {
    throw new UsageError(
      `Cannot export ${run}: --checkpoint must be one of ${stages.join(", ")} (the run's stages), current value is ${
        JSON.stringify(checkpoint)
      }`,
    );
  }
  const dataDir = options.data ?? config.dataDir;
  let tokenizer: Tokenizer | undefined;
  let expect: ModelConfig | undefined;
  if (run !== undefined) {
    // the checkpoint's token ids belong to the run's tokenizer; the model written must be the run's architecture
    tokenizer = tokenizerFromJson(await checkRunTokenizer(run, dataDir, "export"));
    expect = modelPreset(config.model, tokenizer.size);
    const record = await verifyCheckpoint(`${run}/${checkpoint}`, { expect });
    if (record.models.policy === undefined) {
      throw new DataError(`Cannot export ${run}/${checkpoint}: the checkpoint holds no policy`);
    }
  }

  // built beside `out`, then moved into place: a failure or a kill never leaves a half-written export there
  const { staging, previous } = besideOut(out);
  await removeIfPresent(staging);
  await Deno.mkdir(staging, { recursive: true });
  try {
    const built = await buildExport(staging, { config, dataDir, run, checkpoint, preset, tokenizer, expect });
    await removeIfPresent(previous);
    if (await pathExists(out)) await Deno.rename(out, previous);
    await Deno.rename(staging, out);
    await removeIfPresent(previous);
    return { out, ...built };
  } finally {
    await removeIfPresent(staging);
  }
}

/** Writes every file of an export into `dir` (a fresh directory), export.json last. */
async function buildExport(
  dir: string,
  o: {
    config: ExperimentConfig;
    dataDir: string;
    run: string | undefined;
    checkpoint: string;
    preset: string;
    tokenizer: Tokenizer | undefined;
    expect: ModelConfig | undefined;
  },
): Promise<{ files: string[]; algorithms: Algorithm[] }> {
  const { config, dataDir, run, checkpoint, preset } = o;
  const files: string[] = [];
  const data = await exportVerlData(dataDir, dir);
  files.push(...data.files);

  if (run !== undefined) {
    const loaded = await loadCheckpoint(`${run}/${checkpoint}`, { trainable: false, expect: o.expect });
    try {
      const names = await writeHfModel(`${dir}/model`, loaded.models.policy!, o.tokenizer!);
      files.push(...names.map((n) => `model/${n}`));
    } finally {
      for (const m of Object.values(loaded.models)) m.dispose();
    }
  }

  for (const f of PYTHON_FILES) {
    const text = await Deno.readTextFile(new URL(f, PYTHON_ROOT));
    await Deno.mkdir(`${dir}/${f.split("/").slice(0, -1).join("/") || "."}`, { recursive: true });
    await writeFileAtomic(`${dir}/${f}`, text);
    files.push(f);
  }

  await Deno.mkdir(`${dir}/config`, { recursive: true });
  const algorithms = [...new Set<Algorithm>(run === undefined ? ALGORITHMS_EXPORTED : config.rl.algorithms)];
  for (const a of algorithms) {
    const text = renderOverrides(
      verlOverrides(config, a, { ...data, trainCount: data.trainCount }),
      notCarried(config, a),
    );
    await writeFileAtomic(
      `${dir}/config/${a}.overrides`,
      `# verl ${VERL_VERSION} overrides for ${a}, from ${run ?? `preset ${preset}`}\n${text}`,
    );
    files.push(`config/${a}.overrides`);
  }
  await writeFileAtomic(`${dir}/config/mempo.json`, JSON.stringify(mempoJson(config), null, 2) + "\n");
  await writeFileAtomic(`${dir}/config/tool_config.yaml`, TOOL_CONFIG);
  await writeFileAtomic(`${dir}/config/run.sh`, RUN_SH);
  await Deno.chmod(`${dir}/config/run.sh`, 0o755);
  files.push("config/mempo.json", "config/tool_config.yaml", "config/run.sh");

  await writeFileAtomic(
    `${dir}/README.md`,
    exportReadme({
      verlVersion: VERL_VERSION,
      source: run ?? dataDir,
      ...(run === undefined ? {} : { checkpoint }),
      algorithms,
      counts: { train: data.trainCount, tests: data.testCounts, documents: data.documents },
      ...(config.data.questionOnce ? { questionOnce: true } : {}),
      // a run's RL only: a data directory alone was trained by nothing
      ...(run !== undefined && (config.rl.joinShare ?? 0) > 0 ? { joinShare: config.rl.joinShare } : {}),
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
  await writeFileAtomic(`${dir}/export.json`, JSON.stringify(manifest, null, 2) + "\n");
  files.push("export.json");
  return { files, algorithms };
}
