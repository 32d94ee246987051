import assert from "node:assert/strict";
import { buildData, loadData } from "../../lib/data/build.ts";
import { readCorpus, readDataset } from "../../lib/data/dataset.ts";
import { chatTemplate } from "../../lib/env/context.ts";
import { createTeacher } from "../../lib/env/teacher.ts";
import { runEpisodes } from "../../lib/env/rollout.ts";
import { tasksFromRecords } from "../../lib/train/demos.ts";
import { decode } from "../../lib/text/tokenizer.ts";
import { exportVerlData, maxInformationChars, maxToolMessageTokens, promptTokens } from "../../lib/export/verl_data.ts";
import { formatInformation } from "../../lib/env/search.ts";

Deno.test("exportVerlData(): the sets in verl's schema, the corpus twice, and budgets every episode fits", async () => {
  const dir = await Deno.makeTempDir();
  await buildData(dir, 4, {
    trainCount: 30,
    testCount: 3,
    testObjectives: [1, 2, 4],
    trainObjectives: [1, 2],
    sizes: { countries: 3, cities: 6, people: 10, companies: 5, films: 5, distractors: 2 },
  });
  const out = await Deno.makeTempDir();
  const s = await exportVerlData(dir, out);
  assert.deepEqual(s.files, [
    "data/train.parquet",
    "data/test_1obj.parquet",
    "data/test_2obj.parquet",
    "data/test_4obj.parquet",
    "data/corpus.parquet",
    "data/corpus.jsonl",
  ]);
  assert.deepEqual(s.testCounts, { test_1obj: 3, test_2obj: 3, test_4obj: 3 });
  const data = await loadData(dir);
  // the records read back as written (targets = aliases per objective, sub-questions in extra_info)
  assert.deepEqual(await readDataset(`${out}/data/train.parquet`), data.train);
  assert.deepEqual(await readDataset(`${out}/data/test_4obj.parquet`), data.test.get(4));
  assert.deepEqual(await readCorpus(`${out}/data/corpus.parquet`), data.corpus);
  const jsonl = (await Deno.readTextFile(`${out}/data/corpus.jsonl`)).trim().split("\n").map((l) => JSON.parse(l));
  assert.equal(jsonl.length, data.corpus.length);
  const [first] = data.corpus;
  assert.deepEqual(jsonl[0], { id: first!.id, contents: `"${first!.text.split(" ")[0]}"\n${first!.text}` });
  // budgets: the longest prompt is the longest first context; every tool message of real episodes fits
  const tok = data.tokenizer;
  const t = chatTemplate(tok);
  const episodes = await runEpisodes(createTeacher(tok), tasksFromRecords(data.train), data, { contextPolicy: "full" });
  const all = [...data.train, ...[...data.test.values()].flat()];
  assert.equal(s.maxPromptTokens, Math.max(...all.map((r) => t.header(r.question).length + t.turnPrefix.length)));
  assert.ok(episodes.every((e) => e.turns[0]!.context.length <= s.maxPromptTokens));
  const tools = episodes.flatMap((e) => e.turns.filter((x) => x.tool.length > 0).map((x) => x.tool.length));
  assert.ok(tools.every((n) => t.turnEnd.length + n + t.turnPrefix.length <= s.maxToolTokens));
  assert.equal(s.maxToolTokens, maxToolMessageTokens(tok, data.corpus, 3));
  // verl truncates the tool text by characters (Python len): every real <information> text fits
  const infos = episodes.flatMap((e) => e.turns.filter((x) => x.tool.length > 0).map((x) => x.parsed!.content))
    .map((q) => [...formatInformation(data.search.search(q, 3))].length);
  assert.ok(infos.length > 20 && infos.every((n) => n <= s.maxToolChars), `${Math.max(...infos)} > ${s.maxToolChars}`);
  assert.equal(s.maxToolChars, maxInformationChars(data.corpus, 3));
  assert.equal(decode(tok, promptTokens(tok, data.train[0]!)), decode(tok, episodes[0]!.turns[0]!.context));
  assert.throws(() => maxToolMessageTokens(tok, data.corpus, 0), /topK must be a positive integer, current value is 0/);
  assert.throws(
    () => promptTokens(tok, { prompt: [{ role: "tool", content: "x" }], question: "x", targets: [["a"]] }),
    /role must be system, user or assistant, current value is "tool"/,
  );
  await assert.rejects(exportVerlData("/nonexistent", out), /Cannot load data from \/nonexistent/);
  await Deno.remove(dir, { recursive: true });
  await Deno.remove(out, { recursive: true });
});
