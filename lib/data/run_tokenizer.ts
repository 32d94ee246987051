/**
 * A run's tokenizer against its data's: the checkpoints' token ids refer to
 * the tokenizer saved with the run (`runs/NAME/tokenizer.json`), so a resume,
 * an evaluation or an export refuses data whose tokenizer differs.
 *
 * @module
 */
import { tokenizerFromJson } from "../text/tokenizer.ts";
import { DataError } from "../errors.ts";

/** What a run's tokenizer is checked for (the messages name it and its remedy). */
export type RunTokenizerAction = "resume" | "evaluate" | "export";

const REMEDY: Record<RunTokenizerAction, string> = {
  resume: "(the data was rebuilt since training); train the run again",
  evaluate: "(the data was rebuilt since training); train the run again",
  export: "(the data was rebuilt since training); pass the run's data with --data",
};

/**
 * Checks that a run's checkpoints and a data directory share one tokenizer:
 * the run's `tokenizer.json` (written when it started) must equal the data's,
 * or its token ids would be read as other words. A run saved before runs kept
 * their tokenizer has none and is not checked (the data's is the run's); a
 * run's `tokenizer.json` that is not a tokenizer is refused as damaged.
 *
 * ```text
 * no <run>/tokenizer.json              → the data's text (not checked)
 * <run>/tokenizer.json = the data's    → the data's text
 * differs, and parses as a tokenizer   → DataError "… differs from the run's tokenizer.json …"
 * differs, and is not JSON             → DataError "… <run>/tokenizer.json is not valid JSON (…)"
 * differs, and is not a tokenizer      → DataError "… its tokenizer.json is damaged …"
 * ```
 *
 * Source: Hugging Face `save_pretrained` (a checkpoint ships with its tokenizer files).
 *
 * @param runDir The run directory.
 * @param dataDir The data directory it is about to use.
 * @param action What is refused on a mismatch (for the message and its remedy).
 * @returns The data's `tokenizer.json` text (the run's, when it has one).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildTokenizer, tokenizerToJson } from "../text/tokenizer.ts";
 * import { checkRunTokenizer } from "./run_tokenizer.ts";
 *
 * const run = await Deno.makeTempDir();
 * const data = await Deno.makeTempDir();
 * const words = (text: string) => tokenizerToJson(buildTokenizer([text]));
 * await Deno.writeTextFile(`${data}/tokenizer.json`, words("a"));
 * assert.equal(await checkRunTokenizer(run, data, "evaluate"), words("a")); // no saved tokenizer
 * await Deno.writeTextFile(`${run}/tokenizer.json`, words("b"));
 * await assert.rejects(checkRunTokenizer(run, data, "evaluate"), /Cannot evaluate .*differs from the run's tokenizer.json/);
 * await Deno.writeTextFile(`${run}/tokenizer.json`, '{"model": {"vocab"');
 * await assert.rejects(checkRunTokenizer(run, data, "evaluate"), /tokenizer.json is not valid JSON/);
 * await Deno.writeTextFile(`${run}/tokenizer.json`, "{}");
 * await assert.rejects(checkRunTokenizer(run, data, "evaluate"), /tokenizer.json is damaged/);
 * ```
 */
export async function checkRunTokenizer(
  runDir: string,
  dataDir: string,
  action: RunTokenizerAction,
): Promise<string> {
  const dataTokenizer = await Deno.readTextFile(`${dataDir}/tokenizer.json`).catch((e: Error) => {
    throw new DataError(`Cannot ${action} ${runDir}: cannot read ${dataDir}/tokenizer.json (${e.message})`);
  });
  const runTokenizer = await Deno.readTextFile(`${runDir}/tokenizer.json`).catch((e: Error) => {
    if (e instanceof Deno.errors.NotFound) return undefined;
    throw new DataError(`Cannot ${action} ${runDir}: cannot read its tokenizer.json (${e.message})`);
  });
  if (runTokenizer !== undefined && runTokenizer !== dataTokenizer) {
    try {
      tokenizerFromJson(runTokenizer, `${runDir}/tokenizer.json`);
    } catch (e) {
      if (e instanceof DataError) throw new DataError(`Cannot ${action} ${runDir}: ${e.message}`); // not JSON
      throw new DataError(
        `Cannot ${action} ${runDir}: its tokenizer.json is damaged (${(e as Error).message.split("\n")[0]})`,
      );
    }
    throw new DataError(
      `Cannot ${action} ${runDir}: ${dataDir}/tokenizer.json differs from the run's tokenizer.json ${REMEDY[action]}`,
    );
  }
  return dataTokenizer;
}
