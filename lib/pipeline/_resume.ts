/**
 * What a resumed run continues from: each stage's checkpointed step, and the
 * metrics rows those checkpoints cover; every check runs before anything is
 * written, and a refusal is a `DataError`.
 *
 * @module
 */
import type { ExperimentConfig } from "../config/experiment.ts";
import { checkRunTokenizer } from "../data/run_tokenizer.ts";
import { DataError } from "../errors.ts";
import { type CheckpointRecord, readCheckpointRecord, verifyCheckpoint } from "../model/checkpoint.ts";
import type { ModelConfig } from "../model/config.ts";
import { WARMUP_STAGES } from "../stages.ts";
import type { MetricsRow } from "../train/metrics.ts";
import { readMetricsLog } from "../train/metrics_log.ts";

/** A checkpoint's progress, as its record's state holds it. */
export interface StageState {
  step: number;
  done: boolean;
}

function stageState(dir: string, record: CheckpointRecord | undefined): StageState | undefined {
  if (record === undefined) return undefined;
  const { step, done } = record.state as Partial<StageState>;
  if (!Number.isInteger(step) || (step as number) < 0 || typeof done !== "boolean") {
    throw new DataError(
      `Cannot resume: ${dir}/config.json's state must be {step: integer ≥ 0, done: boolean}, current value is ${
        JSON.stringify(record.state)
      }`,
    );
  }
  return { step: step as number, done };
}

/** What a resume continues from, every check passed and nothing yet written. */
export interface ResumePlan {
  sft: StageState | undefined;
  rl: Map<string, StageState | undefined>;
  /** The metrics rows the checkpoints cover (later rows are recomputed). */
  rows: MetricsRow[];
  /** The current text of `metrics.jsonl` (rewritten only when the kept rows differ). */
  metricsText: string;
}

/**
 * Every check of a resume, before it writes anything: the run's tokenizer is
 * the data's, each checkpoint is whole (sizes, hashes, architecture against
 * the weights and the config's), its state readable, and `metrics.jsonl`
 * holds exactly the rows its checkpoints cover (no step missing).
 */
export async function planResume(
  outDir: string,
  config: ExperimentConfig,
  modelConfig: ModelConfig,
): Promise<ResumePlan> {
  await checkRunTokenizer(outDir, config.dataDir, "resume");
  const why = (e: unknown) => (e instanceof DataError ? e.message : String(e));
  const check = async (stage: string, optimizers: string[]) => {
    const dir = `${outDir}/${stage}`;
    let state: StageState | undefined;
    try {
      state = stageState(dir, await readCheckpointRecord(dir));
      if (state !== undefined) {
        // a finished stage is never trained again: its optimizer state is not needed
        await verifyCheckpoint(dir, { expect: modelConfig, optimizers: state.done ? [] : optimizers });
      }
    } catch (e) {
      throw new DataError(`Cannot resume ${outDir}: ${why(e)}`);
    }
    return state;
  };
  const sft = await check("sft", ["policy"]);
  const rl = new Map<string, StageState | undefined>();
  for (const a of config.rl.algorithms) {
    const state = await check(a, a === "ppo" ? ["policy", "critic"] : ["policy"]);
    if (state !== undefined && sft?.done !== true) {
      throw new DataError(`Cannot resume ${outDir}: ${a}/ holds a checkpoint but sft/ is not finished`);
    }
    rl.set(a, state);
  }
  const { rows: all, text } = await readMetricsLog(`${outDir}/metrics.jsonl`).catch((e: Error) => {
    throw e instanceof DataError ? new DataError(`Cannot resume ${outDir}: ${e.message}`) : e;
  });
  // the warm-ups end by their loss: an sft/ checkpoint covers every row they logged
  const warmups = new Set<string>(WARMUP_STAGES);
  const covered = (stage: string) => {
    if (warmups.has(stage)) return sft === undefined ? 0 : Infinity;
    return stage === "sft" ? sft?.step ?? 0 : rl.get(stage)?.step ?? 0;
  };
  const rows = all.filter((row) => Number(row.step) < covered(String(row.stage)));
  for (const stage of [...WARMUP_STAGES, "sft", ...config.rl.algorithms]) {
    const steps = rows.filter((r) => r.stage === stage).map((r) => Number(r.step));
    const want = warmups.has(stage) ? steps.length : covered(stage);
    if (steps.length !== want || steps.some((s, i) => s !== i)) {
      throw new DataError(
        `Cannot resume ${outDir}: metrics.jsonl holds ${steps.length} ${stage} rows before step ${want}, ` +
          `its checkpoint covers ${want} (rows lost or repeated); train the run again`,
      );
    }
  }
  return { sft, rl, rows, metricsText: text };
}
