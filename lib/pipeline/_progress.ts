/**
 * The pipeline's progress events, which `deno task train`, `deno task eval`
 * and `deno task compare` show as bars or log lines.
 *
 * @module
 */

/** A progress event (for a progress bar or a log line). */
export interface ProgressEvent {
  /** `data`, `sft`, `ppo`, `grpo`, `mempo`, `eval`, `done`. */
  stage: string;
  /** Steps done in the stage. */
  step: number;
  /** Steps in the stage. */
  total: number;
  /** Latest metrics of interest. */
  info: Record<string, number | string>;
}
