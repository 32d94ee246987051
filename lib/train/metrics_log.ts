/**
 * Reading `metrics.jsonl`, the training log (one JSON metrics row a line,
 * appended before the checkpoint that covers it): the one reader of the
 * resume, branching, `deno task eval` and the notebooks.
 *
 * @module
 */
import { parseJsonLines, readJsonLines } from "../json_lines.ts";
import type { MetricsRow } from "./metrics.ts";

/** A metrics log as read: its rows, the line a kill cut short (dropped) and its text. */
export interface MetricsLog {
  /** The rows, in file order (a torn last line dropped). */
  rows: MetricsRow[];
  /** The 1-based number of the last line, when a kill cut it short and it was dropped. */
  torn?: number;
  /** The file's text as read (empty when there is no file; a resume rewrites it only when the kept rows differ). */
  text: string;
}

/**
 * Parses the text of a `metrics.jsonl` ({@linkcode parseJsonLines}): one
 * JSON object with `stage` and `step` a line; blank lines are skipped. The
 * last line when it is not JSON is an append that a kill cut short (nothing
 * after it was written): it is dropped and its number returned as `torn`.
 * Any other bad line is refused with a {@linkcode DataError} naming the file
 * and the line.
 *
 * ```text
 * line i (1-based) not JSON:  i = last line → dropped, torn = i;  otherwise → "<path> line i is not JSON (…)"
 * line i not {stage, step}:   "<path> line i is not a metrics row (no stage and step)"
 * ```
 *
 * Source: `parseJsonLines` (the package's one reader of append-only logs).
 *
 * @param text The file's text.
 * @param path The file, for the messages.
 * @returns The rows, and the torn last line's number if one was dropped.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseMetricsLog } from "./metrics_log.ts";
 *
 * const cut = '{"stage":"sft","step":0}\n{"stage":"sft","step":1}\n{"stage":"sft","st';
 * assert.deepEqual(parseMetricsLog(cut, "m.jsonl"), { rows: [{ stage: "sft", step: 0 }, { stage: "sft", step: 1 }], torn: 3 });
 * assert.throws(() => parseMetricsLog('{"stage":\n{"stage":"sft","step":1}\n', "m.jsonl"), /^DataError: m.jsonl line 1 is not JSON/);
 * ```
 */
export function parseMetricsLog(text: string, path: string): Omit<MetricsLog, "text"> {
  const { records: rows, torn } = parseJsonLines<MetricsRow>(text, path, isMetricsRow, WHAT);
  return torn === undefined ? { rows } : { rows, torn };
}

const isMetricsRow = (row: Record<string, unknown>) => "stage" in row && "step" in row;
const WHAT = "a metrics row (no stage and step)";

/**
 * Reads a run's `metrics.jsonl` ({@linkcode parseMetricsLog}): a missing
 * file is a log with no rows (a run that has not logged yet); one that cannot
 * be read, or holds a bad line before its last, is a {@linkcode DataError}
 * naming the file (and the line).
 *
 * Source: see {@linkcode parseMetricsLog}.
 *
 * @param path The file (`runs/NAME/metrics.jsonl`).
 * @returns Its rows, the torn last line if one was dropped, and its text.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readMetricsLog } from "./metrics_log.ts";
 *
 * const dir = await Deno.makeTempDir();
 * assert.deepEqual(await readMetricsLog(`${dir}/metrics.jsonl`), { rows: [], text: "" });
 * await Deno.writeTextFile(`${dir}/metrics.jsonl`, '{"stage":"sft","step":0}\n{"sta');
 * const log = await readMetricsLog(`${dir}/metrics.jsonl`);
 * assert.deepEqual([log.rows, log.torn], [[{ stage: "sft", step: 0 }], 2]);
 * ```
 */
export async function readMetricsLog(path: string): Promise<MetricsLog> {
  const { records: rows, torn, text } = await readJsonLines<MetricsRow>(path, isMetricsRow, WHAT);
  return torn === undefined ? { rows, text } : { rows, torn, text };
}

/**
 * The sentence that says a torn last line of a metrics log was dropped: what
 * `deno task eval` prints and writes into eval.md, so that figures and
 * summaries computed from fewer rows never differ in silence.
 *
 * Source: this package.
 *
 * @param file The log, as the reader should see it named (`runs/x/metrics.jsonl`).
 * @param log The log as read, with a `torn` line.
 * @returns The sentence.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { tornLineNote } from "./metrics_log.ts";
 *
 * assert.equal(
 *   tornLineNote("runs/x/metrics.jsonl", { rows: [{ stage: "sft", step: 0 }], torn: 2 }),
 *   "runs/x/metrics.jsonl line 2 was cut short (an append a kill interrupted) and is dropped: the training figures " +
 *     "and summaries use the 1 row before it",
 * );
 * ```
 */
export function tornLineNote(file: string, log: Pick<MetricsLog, "rows" | "torn">): string {
  const n = log.rows.length;
  return `${file} line ${log.torn} was cut short (an append a kill interrupted) and is dropped: the training figures ` +
    `and summaries use the ${n} row${n === 1 ? "" : "s"} before it`;
}
