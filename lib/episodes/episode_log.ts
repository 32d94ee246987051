/**
 * A run's episode logs: `episodes/eval.jsonl` (every evaluation episode) and
 * `episodes/<algorithm>.jsonl` (the episodes of each RL step), one
 * {@linkcode EpisodeRecord} a line, appended as a cell or a step finishes. A
 * kill cuts short at most the last line, which the reader drops (as
 * `metrics.jsonl`'s, through the same `parseJsonLines`); a resume keeps the
 * records its checkpoints cover and rewrites the file only when they differ.
 *
 * @module
 */
import { writeFileAtomic } from "../atomic_file.ts";
import { parseJsonLines, readJsonLines } from "../json_lines.ts";
import { type EpisodeRecord, isEpisodeRecord } from "./episode_record.ts";

/** What a line of an episode log must be, for the reader's message. */
const WHAT = "an episode record (v 1, stage, turns)";

/** The episode logs' folder in a run directory (the checkpoint folders are swapped whole: a log cannot live in them). */
export const EPISODES_DIR = "episodes";

/**
 * The episode log of one stage of a run: `RUN/episodes/<stage>.jsonl`.
 *
 * Source: this package.
 *
 * @param runDir The run directory (or the directory an evaluation writes to).
 * @param stage `eval` or an RL algorithm.
 * @returns The path.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { episodeLogPath } from "./episode_log.ts";
 *
 * assert.equal(episodeLogPath("runs/quick", "mempo"), "runs/quick/episodes/mempo.jsonl");
 * assert.throws(() => episodeLogPath("runs/quick", "../x"), /stage must be letters/);
 * ```
 */
export function episodeLogPath(runDir: string, stage: string): string {
  if (!/^[a-z][a-z0-9_-]*$/.test(stage)) {
    throw new RangeError(
      `Cannot name an episode log: stage must be letters, digits, '_' or '-', current value is ${stage}`,
    );
  }
  return `${runDir}/${EPISODES_DIR}/${stage}.jsonl`;
}

/**
 * Appends records to an episode log, one line each, in one write (the folder
 * made when missing). A kill during the write leaves whole lines and at most
 * one torn last line.
 *
 * Source: the JSON Lines format; the append of `metrics.jsonl`.
 *
 * @param path The log.
 * @param records The records.
 * @returns Nothing.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { appendEpisodes, readEpisodeLog } from "./episode_log.ts";
 *
 * const path = `${await Deno.makeTempDir()}/episodes/eval.jsonl`;
 * const record = { v: 1, stage: "eval", index: 0, turns: [] } as never;
 * await appendEpisodes(path, [record, record]);
 * await appendEpisodes(path, []);
 * assert.equal((await readEpisodeLog(path)).records.length, 2);
 * ```
 */
export async function appendEpisodes(path: string, records: readonly EpisodeRecord[]): Promise<void> {
  if (records.length === 0) return;
  await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
  await Deno.writeTextFile(path, records.map((r) => JSON.stringify(r) + "\n").join(""), { append: true });
}

/**
 * Parses an episode log's text: its records, a torn last line dropped, any
 * other bad line a `DataError` naming the file and line.
 *
 * Source: `parseJsonLines`.
 *
 * @param text The text.
 * @param path The file, for the messages.
 * @returns The records, in file order.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseEpisodeLog } from "./episode_log.ts";
 *
 * const line = '{"v":1,"stage":"mempo","step":0,"turns":[]}';
 * assert.equal(parseEpisodeLog(`${line}\n${line}\n{"v":1,"sta`, "e.jsonl").length, 2);
 * assert.throws(() => parseEpisodeLog('{"v":1}\n', "e.jsonl"), /e.jsonl line 1 is not an episode record/);
 * ```
 */
export function parseEpisodeLog(text: string, path: string): EpisodeRecord[] {
  return parseJsonLines<EpisodeRecord>(text, path, isEpisodeRecord, WHAT).records;
}

/**
 * Reads an episode log: a missing one has no records; a torn last line is
 * dropped ({@linkcode parseEpisodeLog}).
 *
 * Source: `readJsonLines`.
 *
 * @param path The log.
 * @returns Its records and its text as read.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readEpisodeLog } from "./episode_log.ts";
 *
 * assert.deepEqual(await readEpisodeLog(`${await Deno.makeTempDir()}/none.jsonl`), { records: [], text: "" });
 * ```
 */
export async function readEpisodeLog(path: string): Promise<{ records: EpisodeRecord[]; text: string }> {
  const { records, text } = await readJsonLines<EpisodeRecord>(path, isEpisodeRecord, WHAT);
  return { records, text };
}

/**
 * Keeps the records of an episode log that `keep` accepts and drops a torn
 * last line, rewriting the file (atomically) only when that changes it; a
 * log with no record kept is removed. What a resume does to the records
 * after a stage's checkpoint (they are sampled again) and an evaluation to
 * the records of an earlier evaluation.
 *
 * Source: the resume of `metrics.jsonl` (the rows after the checkpoint dropped, in one rename).
 *
 * @param path The log.
 * @param keep Whether a record stays.
 * @returns The records kept.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { appendEpisodes, keepEpisodes, readEpisodeLog } from "./episode_log.ts";
 *
 * const path = `${await Deno.makeTempDir()}/episodes/mempo.jsonl`;
 * await appendEpisodes(path, [0, 1, 2].map((step) => ({ v: 1, stage: "mempo", step, index: 0, turns: [] }) as never));
 * await Deno.writeTextFile(path, '{"v":1,"st', { append: true }); // a kill mid-append
 * assert.equal((await keepEpisodes(path, (r) => r.step! < 2)).length, 2);
 * assert.deepEqual((await readEpisodeLog(path)).text.split("\n").length, 3); // two lines and the final newline
 * await keepEpisodes(path, () => false);
 * assert.deepEqual(await readEpisodeLog(path), { records: [], text: "" });
 * ```
 */
export async function keepEpisodes(path: string, keep: (record: EpisodeRecord) => boolean): Promise<EpisodeRecord[]> {
  const { records, text } = await readEpisodeLog(path);
  const kept = records.filter(keep);
  if (kept.length === 0) {
    await Deno.remove(path).catch((e) => {
      if (!(e instanceof Deno.errors.NotFound)) throw e;
    });
    return kept;
  }
  const keptText = kept.map((r) => JSON.stringify(r) + "\n").join("");
  if (keptText !== text) await writeFileAtomic(path, keptText);
  return kept;
}
