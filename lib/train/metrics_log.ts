/**
 * Reading `metrics.jsonl`, the training log (one JSON metrics row a line,
 * appended before the checkpoint that covers it): the one reader of the
 * resume, branching, `deno task eval` and the notebooks.
 *
 * @module
 */
import { parseJsonLines, readJsonLines } from "../json_lines.ts";
import type { MetricsRow } from "./metrics.ts";

/** A metrics log as read: its rows and its text (a resume rewrites it only when the kept rows differ). */
export interface MetricsLog {
  /** The rows, in file order (a torn last line dropped). */
  rows: MetricsRow[];
  /** The file's text as read (empty when there is no file). */
  text: string;
}

/**
 * Parses the text of a `metrics.jsonl`: one JSON object with `stage` and
 * `step` a line; blank lines are skipped. The last line when it is not JSON
 * is an append that a kill cut short (nothing after it was written): it is
 * dropped. Any other bad line is refused with a {@linkcode DataError} naming
 * the file and the line.
 *
 * ```text
 * line i (1-based) not JSON:  i = last line → dropped;  otherwise → "<path> line i is not JSON (…)"
 * line i not {stage, step}:   "<path> line i is not a metrics row (no stage and step)"
 * ```
 *
 * Source: `parseJsonLines` (the package's one reader of append-only logs).
 *
 * @param text The file's text.
 * @param path The file, for the messages.
 * @returns The rows.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseMetricsRows } from "./metrics_log.ts";
 *
 * const ok = '{"stage":"sft","step":0}\n{"stage":"sft","step":1}\n{"stage":"sft","st';
 * assert.deepEqual(parseMetricsRows(ok, "m.jsonl"), [{ stage: "sft", step: 0 }, { stage: "sft", step: 1 }]);
 * assert.throws(() => parseMetricsRows('{"stage":\n{"stage":"sft","step":1}\n', "m.jsonl"), /^DataError: m.jsonl line 1 is not JSON/);
 * ```
 */
export function parseMetricsRows(text: string, path: string): MetricsRow[] {
  return parseJsonLines<MetricsRow>(text, path, isMetricsRow, "a metrics row (no stage and step)");
}

const isMetricsRow = (row: Record<string, unknown>) => "stage" in row && "step" in row;

/**
 * Reads a run's `metrics.jsonl` ({@linkcode parseMetricsRows}): a missing
 * file is a log with no rows (a run that has not logged yet); one that cannot
 * be read, or holds a bad line before its last, is a {@linkcode DataError}
 * naming the file (and the line).
 *
 * Source: see {@linkcode parseMetricsRows}.
 *
 * @param path The file (`runs/NAME/metrics.jsonl`).
 * @returns Its rows and text.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readMetricsLog } from "./metrics_log.ts";
 *
 * const dir = await Deno.makeTempDir();
 * assert.deepEqual(await readMetricsLog(`${dir}/metrics.jsonl`), { rows: [], text: "" });
 * await Deno.writeTextFile(`${dir}/metrics.jsonl`, '{"stage":"sft","step":0}\n{"sta');
 * assert.deepEqual((await readMetricsLog(`${dir}/metrics.jsonl`)).rows, [{ stage: "sft", step: 0 }]);
 * ```
 */
export async function readMetricsLog(path: string): Promise<MetricsLog> {
  const { records, text } = await readJsonLines<MetricsRow>(path, isMetricsRow, "a metrics row (no stage and step)");
  return { rows: records, text };
}
