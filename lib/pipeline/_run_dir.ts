/**
 * The run directory made ready for the stages: the data first (data that is
 * refused leaves the directory as it was), then, for a resume, every check
 * before anything is written; a fresh run replaces an earlier one; the
 * config and the data's tokenizer are written, and a resume cuts
 * `metrics.jsonl` and the RL episodes back to what its checkpoints cover.
 *
 * @module
 */
import { setBackend } from "../backend.ts";
import type { ExperimentConfig } from "../config/experiment.ts";
import type { LoadedData } from "../data/build.ts";
import { DataError } from "../errors.ts";
import { settleCheckpoint } from "../model/checkpoint.ts";
import { type ModelConfig, modelPreset } from "../model/config.ts";
import { pathExists } from "../path_exists.ts";
import { writeFileAtomic } from "../atomic_file.ts";
import { planResume, type ResumePlan } from "./_resume.ts";
import { metricsLine } from "./_stage_context.ts";
import { keepCoveredEpisodes } from "./run_episodes.ts";

/** A run directory ready for its stages. */
export interface PreparedRun {
  data: LoadedData;
  modelConfig: ModelConfig;
  /** What a resume continues from (undefined: a fresh run). */
  plan: ResumePlan | undefined;
}

/**
 * Prepares `outDir` for a run of `config` (see the module doc).
 *
 * @param config The experiment.
 * @param outDir The run directory.
 * @param resume Continue from its checkpoints.
 * @param loadData The run's data, reused or built (`ensureData`).
 * @returns The data, the architecture and the resume plan.
 */
export async function prepareRun(
  config: ExperimentConfig,
  outDir: string,
  resume: boolean,
  loadData: () => Promise<LoadedData>,
): Promise<PreparedRun> {
  await setBackend(config.backend);
  if (resume && !(await pathExists(outDir))) throw new DataError(`Cannot resume ${outDir}: no such directory`);
  const metricsPath = `${outDir}/metrics.jsonl`;
  const data = await loadData();
  const modelConfig = modelPreset(config.model, data.tokenizer.size);
  const tokenizerText = await Deno.readTextFile(`${config.dataDir}/tokenizer.json`);
  // which steps each stage had checkpointed; a resume checks everything before it writes anything
  const plan = resume ? await planResume(outDir, config, modelConfig) : undefined;
  await Deno.mkdir(outDir, { recursive: true });
  if (!resume && (await pathExists(metricsPath))) {
    for (const e of Deno.readDirSync(outDir)) await Deno.remove(`${outDir}/${e.name}`, { recursive: true });
  }
  const configText = JSON.stringify(config, null, 2);
  if ((await Deno.readTextFile(`${outDir}/config.json`).catch(() => undefined)) !== configText) {
    await writeFileAtomic(`${outDir}/config.json`, configText, "resume-config");
  }
  // the checkpoints' token ids belong to this tokenizer: it travels with the run (`deno task eval` checks it)
  if ((await Deno.readTextFile(`${outDir}/tokenizer.json`).catch(() => undefined)) !== tokenizerText) {
    await writeFileAtomic(`${outDir}/tokenizer.json`, tokenizerText);
  }
  if (plan !== undefined) {
    // the rows after each stage's checkpoint are recomputed: drop them, in one rename
    const kept = plan.rows.map(metricsLine).join("");
    if (kept !== plan.metricsText) await writeFileAtomic(metricsPath, kept, "resume-metrics");
    // a checkpoint whose swap a kill interrupted is made current under its own name again
    for (const stage of ["sft", ...config.rl.algorithms]) await settleCheckpoint(`${outDir}/${stage}`);
    await removeStaleTemporaries(outDir);
    // the RL episodes after each checkpoint are sampled again, as the metrics rows are
    await keepCoveredEpisodes(outDir, config.rl.algorithms, (a) => plan.rl.get(a)?.step ?? 0);
  }
  return { data, modelConfig, plan };
}

/** Removes the temporary files of writes that a kill cut short (hidden `.<name>.tmp-<pid>`). */
async function removeStaleTemporaries(dir: string): Promise<void> {
  for await (const e of Deno.readDir(dir)) {
    if (e.isFile && /^\..+\.tmp-\d+$/.test(e.name)) await Deno.remove(`${dir}/${e.name}`);
  }
}
