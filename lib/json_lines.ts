/**
 * Append-only JSON Lines logs (`metrics.jsonl`, `episodes/*.jsonl`): one JSON
 * object a line, appended as a step finishes, so a kill can cut short only the
 * last line. The one reader of such a log: its torn tail is dropped, any other
 * bad line refused.
 *
 * @module
 */
import { DataError } from "./errors.ts";

/**
 * Parses the text of a JSON Lines log: one JSON object a line, each accepted
 * by `accepts`; blank lines are skipped. The last line when it is not JSON is
 * an append that a kill cut short (nothing after it was written): it is
 * dropped. Any other bad line is refused with a {@linkcode DataError} naming
 * the file and the line.
 *
 * ```text
 * line i (1-based) not JSON:      i = last line → dropped;  otherwise → "<path> line i is not JSON (…)"
 * line i not accepted (an object): "<path> line i is not <what>"
 * ```
 *
 * Source: the JSON Lines format (jsonlines.org); append-only logs whose torn tail is dropped on recovery (write-ahead logs).
 *
 * @param text The file's text.
 * @param path The file, for the messages.
 * @param accepts Whether a parsed object is a record of the log.
 * @param what What a record is, for the message (`a metrics row (no stage and step)`).
 * @returns The records, in file order, and the 1-based number of a torn last line that was dropped (for the caller
 *   to say so).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseJsonLines } from "./json_lines.ts";
 *
 * const hasA = (x: Record<string, unknown>) => "a" in x;
 * assert.deepEqual(parseJsonLines('{"a":1}\n\n{"a":2}\n{"a"', "x.jsonl", hasA, "a record"), {
 *   records: [{ a: 1 }, { a: 2 }],
 *   torn: 4,
 * });
 * assert.throws(() => parseJsonLines('{"a"\n{"a":2}\n', "x.jsonl", hasA, "a record"), /^DataError: x.jsonl line 1 is not JSON/);
 * assert.throws(() => parseJsonLines('[1]\n', "x.jsonl", hasA, "a record"), /^DataError: x.jsonl line 1 is not a record$/);
 * ```
 */
export function parseJsonLines<T>(
  text: string,
  path: string,
  accepts: (record: Record<string, unknown>) => boolean,
  what: string,
): { records: T[]; torn?: number } {
  const lines = text.split("\n");
  const records: T[] = [];
  for (const [i, line] of lines.entries()) {
    if (line.trim() === "") continue;
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch (e) {
      if (i === lines.length - 1) return { records, torn: i + 1 }; // the last, unterminated line: a torn append
      throw new DataError(`${path} line ${i + 1} is not JSON (${(e as Error).message})`);
    }
    if (
      typeof record !== "object" || record === null || Array.isArray(record) ||
      !accepts(record as Record<string, unknown>)
    ) {
      throw new DataError(`${path} line ${i + 1} is not ${what}`);
    }
    records.push(record as T);
  }
  return { records };
}

/**
 * Reads a JSON Lines log ({@linkcode parseJsonLines}): a missing file is a
 * log with no records (nothing logged yet); one that cannot be read, or holds
 * a bad line before its last, is a {@linkcode DataError} naming the file.
 *
 * Source: see {@linkcode parseJsonLines}.
 *
 * @param path The file.
 * @param accepts Whether a parsed object is a record of the log.
 * @param what What a record is, for the message.
 * @returns Its records, its torn last line (if one was dropped) and its text as read (empty when there is no file).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readJsonLines } from "./json_lines.ts";
 *
 * const dir = await Deno.makeTempDir();
 * assert.deepEqual(await readJsonLines(`${dir}/x.jsonl`, () => true, "a record"), { records: [], text: "" });
 * await Deno.writeTextFile(`${dir}/x.jsonl`, '{"a":1}\n{"a');
 * assert.deepEqual((await readJsonLines(`${dir}/x.jsonl`, () => true, "a record")).records, [{ a: 1 }]);
 * ```
 */
export async function readJsonLines<T>(
  path: string,
  accepts: (record: Record<string, unknown>) => boolean,
  what: string,
): Promise<{ records: T[]; torn?: number; text: string }> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return { records: [], text: "" };
    throw new DataError(`Cannot read ${path} (${(e as Error).message})`);
  }
  return { ...parseJsonLines<T>(text, path, accepts, what), text };
}
