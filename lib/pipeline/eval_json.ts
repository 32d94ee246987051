/**
 * A run's stored `eval.json`, read back: by `deno task compare` (the SFT
 * start's rows) and by `deno task eval` (the training stages' times, which
 * the rewrite keeps). A missing file is no evaluation yet; a damaged one is
 * refused with its path, before anything is computed or written.
 *
 * @module
 */
import { DataError } from "../errors.ts";
import { readJsonFile } from "../json_file.ts";

/** The stages an evaluation times itself (`evaluateRun` replaces them). */
const EVAL_STAGES = new Set(["eval", "groups"]);

/**
 * The JSON object of `${runDir}/eval.json`, or `undefined` when there is none.
 *
 * Source: this package (eval.json is written by `writeEvalFiles`).
 *
 * @param runDir The run directory (or a split's evaluation folder).
 * @param doing What the caller does, for the error (`compare runs/x`).
 * @returns The parsed object, or undefined when the file does not exist.
 * @throws {DataError} When it cannot be read, is not JSON or is not a JSON object (the path is named).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readEvalJson } from "./eval_json.ts";
 *
 * const dir = await Deno.makeTempDir();
 * assert.equal(await readEvalJson(dir, "evaluate"), undefined);
 * await Deno.writeTextFile(`${dir}/eval.json`, '{"rows": []}');
 * assert.deepEqual(await readEvalJson(dir, "evaluate"), { rows: [] });
 * await Deno.writeTextFile(`${dir}/eval.json`, "[1]");
 * await assert.rejects(() => readEvalJson(dir, "evaluate"), /Cannot evaluate: .*eval\.json is damaged \(not a JSON object: \[1\]\)/);
 * ```
 */
export async function readEvalJson(runDir: string, doing: string): Promise<Record<string, unknown> | undefined> {
  const path = `${runDir}/eval.json`;
  const json = await readJsonFile(path, { optional: true }).catch((e: Error) => {
    throw e instanceof DataError ? new DataError(`Cannot ${doing}: ${e.message}`) : e;
  });
  if (json === undefined) return undefined;
  if (json === null || typeof json !== "object" || Array.isArray(json)) {
    throw new DataError(
      `Cannot ${doing}: ${path} is damaged (not a JSON object: ${JSON.stringify(json).slice(0, 80)})`,
    );
  }
  return json as Record<string, unknown>;
}

/**
 * The training stages' seconds recorded in a run's `eval.json` (every timing
 * but the evaluation's own, `eval` and `groups`), so that evaluating a run
 * again keeps the times of the stages that trained it: `deno task train`
 * writes them only there. A run without `eval.json`, or one whose eval.json
 * has no `timings`, has none.
 *
 * Source: this package (`deno task eval` rewrites eval.json and loses nothing).
 *
 * @param runDir The run directory.
 * @returns Seconds per training stage, in the order recorded.
 * @throws {DataError} When eval.json is damaged ({@linkcode readEvalJson}) or its `timings` is not an object of finite numbers.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { trainingTimings } from "./eval_json.ts";
 *
 * const dir = await Deno.makeTempDir();
 * assert.deepEqual(await trainingTimings(dir), {});
 * await Deno.writeTextFile(`${dir}/eval.json`, JSON.stringify({ timings: { data: 1, sft: 900, mempo: 80, eval: 90, groups: 30 } }));
 * assert.deepEqual(await trainingTimings(dir), { data: 1, sft: 900, mempo: 80 });
 * ```
 */
export async function trainingTimings(runDir: string): Promise<Record<string, number>> {
  const json = await readEvalJson(runDir, "keep the training times");
  const timings = json?.timings;
  if (timings === undefined) return {};
  const entries = timings !== null && typeof timings === "object" && !Array.isArray(timings)
    ? Object.entries(timings)
    : undefined;
  const bad = entries?.find(([, v]) => typeof v !== "number" || !Number.isFinite(v));
  if (entries === undefined || bad !== undefined) {
    const value = bad === undefined ? `is ${JSON.stringify(timings)}` : `of ${bad[0]} is ${JSON.stringify(bad[1])}`;
    throw new DataError(
      `Cannot keep the training times: ${runDir}/eval.json's timings must map stages to seconds, current value ${value}`,
    );
  }
  return Object.fromEntries((entries as [string, number][]).filter(([k]) => !EVAL_STAGES.has(k)));
}
