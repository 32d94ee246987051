import assert from "node:assert/strict";
import { DataError } from "../lib/errors.ts";
import { parseJsonText, readJsonFile } from "../lib/json_file.ts";

const refused = (message: RegExp) => (e: Error) => e instanceof DataError && message.test(e.message);

Deno.test("readJsonFile(): the value; missing, unreadable and not-JSON files each a DataError naming the file", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/ok.json`, '{"a": [1, 2]}');
    assert.deepEqual(await readJsonFile(`${dir}/ok.json`), { a: [1, 2] });
    assert.equal(await readJsonFile(`${dir}/none.json`, { optional: true }), undefined);
    await assert.rejects(readJsonFile(`${dir}/none.json`), refused(/^Cannot read .*\/none\.json: no such file$/));
    await assert.rejects(
      readJsonFile(`${dir}/none.json`, { what: "--config file", hint: "give another" }),
      refused(/^Cannot read --config file .*\/none\.json: no such file; give another$/),
    );
    // a directory where the file should be is not taken for a missing file, even when it may be missing
    await Deno.mkdir(`${dir}/dir.json`);
    await assert.rejects(readJsonFile(`${dir}/dir.json`, { optional: true }), refused(/^Cannot read .*\/dir\.json: /));
    for (const text of ['{"a": ', "", "{'a': 1}", '{"a": 1}\n{"b": 2}\n', "\u0000"]) {
      await Deno.writeTextFile(`${dir}/bad.json`, text);
      await assert.rejects(
        readJsonFile(`${dir}/bad.json`, { optional: true, hint: "rebuild it" }),
        refused(/^\/.*\/bad\.json is not valid JSON \(.+\); rebuild it$/),
        JSON.stringify(text),
      );
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("parseJsonText(): the parser's own message, after the file's name and what it is", () => {
  assert.equal(parseJsonText("null", "x.json"), null);
  assert.throws(
    () => parseJsonText('{"rl": {"lr": 1', "runs/x/config.json", { what: "the run's config" }),
    refused(/^the run's config runs\/x\/config\.json is not valid JSON \(.*JSON.*\)$/),
  );
});
