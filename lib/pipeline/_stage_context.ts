/**
 * What every stage of a run reads: the experiment, its directory and data,
 * the model architecture, the metrics log, the progress and stop hooks, and
 * the run's model scope (what outlives a stage).
 *
 * @module
 */
import type { ExperimentConfig } from "../config/experiment.ts";
import type { LoadedData } from "../data/build.ts";
import type { ModelConfig } from "../model/config.ts";
import type { MetricsRow } from "../train/metrics.ts";
import type { ModelScope } from "./_model_scope.ts";
import type { ProgressEvent } from "./_progress.ts";

/** The run as its stages see it. */
export interface StageContext {
  /** The experiment. */
  config: ExperimentConfig;
  /** The run directory. */
  outDir: string;
  /** The run's data. */
  data: LoadedData;
  /** The policy's architecture (the preset on the data's vocabulary). */
  modelConfig: ModelConfig;
  /** Appends one row to `metrics.jsonl`. */
  log: (row: MetricsRow) => Promise<void>;
  /** Progress hook. */
  progress: (e: ProgressEvent) => void;
  /** Polled between steps: true saves a checkpoint and stops (Ctrl-C). */
  stop: () => boolean;
  /** The run's scope: models a later stage reads are kept here, and freed when the run ends. */
  scope: ModelScope;
}

/** One `metrics.jsonl` line. */
export const metricsLine = (row: MetricsRow): string => JSON.stringify(row) + "\n";
