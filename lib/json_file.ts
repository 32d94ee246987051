/**
 * The one reader of the JSON and JSON Lines files the tasks read (run and
 * data configs, manifests, tokenizers, checkpoint records, eval.json,
 * metrics.jsonl, notebooks): a file that is missing, unreadable or not JSON
 * is a {@linkcode DataError} that names it and what the parser found, so a
 * task ends with one line (exit 1), never a `SyntaxError` and its stack.
 *
 * @module
 */
import { DataError } from "./errors.ts";

/** How {@linkcode readJsonFile} treats a file. */
export interface JsonFileOptions {
  /** What the file is, put before its path in the messages (`--config file`). */
  what?: string;
  /** A missing file is `undefined` instead of a refusal. @default false */
  optional?: boolean;
  /** What to do about it, appended to every refusal (`rebuild it with deno task data`). */
  hint?: string;
}

const named = (path: string, options: JsonFileOptions) => (options.what ? `${options.what} ${path}` : path);
const hinted = (message: string, options: JsonFileOptions) => (options.hint ? `${message}; ${options.hint}` : message);

/**
 * Parses the text of a JSON file; text that is not JSON is a
 * {@linkcode DataError} `<path> is not valid JSON (<the parser's message>)`.
 *
 * Source: ECMA-404 (JSON), through `JSON.parse`.
 *
 * @param text The file's text.
 * @param path The file, for the message.
 * @param options `what` and `hint` of the message ({@linkcode JsonFileOptions}).
 * @returns The parsed value.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseJsonText } from "./json_file.ts";
 *
 * assert.deepEqual(parseJsonText('{"a": 1}', "x.json"), { a: 1 });
 * assert.throws(() => parseJsonText('{"a": ', "runs/x/config.json"), /^DataError: runs\/x\/config\.json is not valid JSON \(/);
 * ```
 */
export function parseJsonText(text: string, path: string, options: JsonFileOptions = {}): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new DataError(hinted(`${named(path, options)} is not valid JSON (${(e as Error).message})`, options));
  }
}

/**
 * Reads and parses a JSON file ({@linkcode parseJsonText}). A missing file
 * is refused (`Cannot read <path>: no such file`), or is `undefined` with
 * `optional`; one that cannot be read is refused with the system's reason.
 *
 * ```text
 * missing      → optional ? undefined : DataError "Cannot read <what> <path>: no such file[; hint]"
 * unreadable   → DataError "Cannot read <what> <path>: <reason>[; hint]"
 * not JSON     → DataError "<what> <path> is not valid JSON (<parser>)[; hint]"
 * ```
 *
 * Source: the tasks' shared error path (`lib/cli/task.ts` prints a DataError alone, exit 1).
 *
 * @param path The file.
 * @param options What it is, whether it may be missing, the remedy ({@linkcode JsonFileOptions}).
 * @returns The parsed value, or undefined for a missing optional file.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readJsonFile } from "./json_file.ts";
 *
 * const dir = await Deno.makeTempDir();
 * assert.equal(await readJsonFile(`${dir}/eval.json`, { optional: true }), undefined);
 * await assert.rejects(readJsonFile(`${dir}/a.json`, { what: "--config file" }), /^DataError: Cannot read --config file .*a\.json: no such file$/);
 * await Deno.writeTextFile(`${dir}/a.json`, '{"rl": ');
 * await assert.rejects(readJsonFile(`${dir}/a.json`, { hint: "write it again" }), /a\.json is not valid JSON \(.*\); write it again$/);
 * ```
 */
export async function readJsonFile(path: string, options: JsonFileOptions = {}): Promise<unknown> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound && options.optional) return undefined;
    const why = e instanceof Deno.errors.NotFound ? "no such file" : (e as Error).message;
    throw new DataError(hinted(`Cannot read ${named(path, options)}: ${why}`, options));
  }
  return parseJsonText(text, path, options);
}

/** The values of a JSON Lines text ({@linkcode parseJsonLines}). */
export interface JsonLines {
  /** Each line's value with its 1-based line number, in file order (blank lines skipped). */
  values: { line: number; value: unknown }[];
  /** The 1-based number of a last line that was cut short and dropped (not JSON, no newline after it). */
  torn?: number;
}

/**
 * Parses a JSON Lines text, one JSON value a line; blank lines are skipped.
 * A last line with no newline after it that is not JSON is an append a kill
 * cut short: it is dropped and its number returned as `torn`, for the
 * caller to say so. Any other line that is not JSON is a
 * {@linkcode DataError} naming the file and the line.
 *
 * ```text
 * line i (1-based) not JSON:  i last and unterminated → torn = i;  otherwise → "<path> line i is not JSON (…)"
 * ```
 *
 * Source: the JSON Lines format (jsonlines.org); append-only logs whose torn tail is dropped on recovery (write-ahead logs).
 *
 * @param text The file's text.
 * @param path The file, for the messages.
 * @returns The values and the torn line, if any.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseJsonLines } from "./json_file.ts";
 *
 * assert.deepEqual(parseJsonLines('{"a":1}\n\n{"a":2}\n{"a"', "m.jsonl"), {
 *   values: [{ line: 1, value: { a: 1 } }, { line: 3, value: { a: 2 } }],
 *   torn: 4,
 * });
 * assert.throws(() => parseJsonLines('{"a"\n{"a":2}\n', "m.jsonl"), /^DataError: m\.jsonl line 1 is not JSON \(/);
 * ```
 */
export function parseJsonLines(text: string, path: string): JsonLines {
  const lines = text.split("\n");
  const values: JsonLines["values"] = [];
  for (const [i, line] of lines.entries()) {
    if (line.trim() === "") continue;
    try {
      values.push({ line: i + 1, value: JSON.parse(line) });
    } catch (e) {
      if (i === lines.length - 1) return { values, torn: i + 1 }; // the last, unterminated line: a torn append
      throw new DataError(`${path} line ${i + 1} is not JSON (${(e as Error).message})`);
    }
  }
  return { values };
}
