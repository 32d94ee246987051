import assert from "node:assert/strict";
import { DataError } from "../../lib/errors.ts";
import {
  appendEpisodes,
  episodeLogPath,
  keepEpisodes,
  parseEpisodeLog,
  readEpisodeLog,
} from "../../lib/episodes/episode_log.ts";
import type { EpisodeRecord } from "../../lib/episodes/episode_record.ts";

const record = (step: number, index: number) =>
  ({ v: 1, stage: "mempo", step, index, agent: "MemPO", turns: [{ tokens: ["a"] }] }) as unknown as EpisodeRecord;

Deno.test("appendEpisodes() and readEpisodeLog(): one line per record, appended, read back in order", async () => {
  const path = episodeLogPath(await Deno.makeTempDir(), "mempo");
  await appendEpisodes(path, [record(0, 0), record(0, 1)]);
  await appendEpisodes(path, [record(1, 0)]);
  const { records, text } = await readEpisodeLog(path);
  assert.deepEqual(records.map((r) => [r.step, r.index]), [[0, 0], [0, 1], [1, 0]]);
  assert.equal(text.split("\n").length, 4);
  assert.ok(text.endsWith("\n"));
});

Deno.test("readEpisodeLog(): a kill mid-append leaves a torn last line, which is left out; a bad line before it is refused", async () => {
  const path = episodeLogPath(await Deno.makeTempDir(), "grpo");
  await appendEpisodes(path, [record(0, 0), record(0, 1)]);
  const whole = await Deno.readTextFile(path);
  // the first half of a third record, as a kill during the write leaves it
  const third = JSON.stringify(record(1, 0));
  await Deno.writeTextFile(path, third.slice(0, third.length >> 1), { append: true });
  assert.deepEqual((await readEpisodeLog(path)).records.map((r) => r.index), [0, 1]);
  assert.throws(() => parseEpisodeLog(`${third.slice(0, 20)}\n${whole}`, path), (e: unknown) => {
    assert.ok(e instanceof DataError);
    assert.match(e.message, /grpo\.jsonl line 1 is not JSON/);
    return true;
  });
  assert.throws(() => parseEpisodeLog('{"v":1,"stage":"grpo"}\n', path), /line 1 is not an episode record/);
});

Deno.test("keepEpisodes(): keeps what it is told, drops the torn line, rewrites only on a change, removes an empty log", async () => {
  const path = episodeLogPath(await Deno.makeTempDir(), "mempo");
  await appendEpisodes(path, [0, 1, 2, 3].map((s) => record(s, 0)));
  const before = (await Deno.stat(path)).mtime!.getTime();
  await new Promise((r) => setTimeout(r, 20));
  assert.equal((await keepEpisodes(path, () => true)).length, 4);
  assert.equal((await Deno.stat(path)).mtime!.getTime(), before, "nothing to change: not rewritten");
  await Deno.writeTextFile(path, '{"v":1,"stage":"mempo","st', { append: true });
  assert.deepEqual((await keepEpisodes(path, (r) => r.step! < 2)).map((r) => r.step), [0, 1]);
  assert.equal(await Deno.readTextFile(path), [0, 1].map((s) => JSON.stringify(record(s, 0)) + "\n").join(""));
  // appending after the rewrite gives whole lines again
  await appendEpisodes(path, [record(2, 0)]);
  assert.deepEqual((await readEpisodeLog(path)).records.map((r) => r.step), [0, 1, 2]);
  assert.deepEqual(await keepEpisodes(path, () => false), []);
  assert.equal(await Deno.stat(path).then(() => true, () => false), false);
  assert.deepEqual(await keepEpisodes(path, () => false), [], "a missing log stays missing");
});

Deno.test("episodeLogPath(): RUN/episodes/<stage>.jsonl; a stage that could name another path is refused", () => {
  assert.equal(episodeLogPath("runs/q", "eval"), "runs/q/episodes/eval.jsonl");
  for (const bad of ["", "../x", "a/b", "Eval", ".hidden"]) {
    assert.throws(() => episodeLogPath("runs/q", bad), RangeError, bad);
  }
});
