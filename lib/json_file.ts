/**
 * The one reader of the JSON files the tasks read (run and data configs,
 * manifests, tokenizers, checkpoint records, eval.json, notebooks; the
 * JSON Lines logs go through `json_lines.ts`): a file that is missing, unreadable or not JSON
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
