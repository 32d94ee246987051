import assert from "node:assert/strict";
import { DataError } from "../lib/errors.ts";
import { parseJsonLines, readJsonLines } from "../lib/json_lines.ts";

const hasId = (x: Record<string, unknown>) => typeof x.id === "number";

Deno.test("parseJsonLines(): records in order, blank lines skipped, a torn last line dropped", () => {
  const text = '{"id":1}\n\n{"id":2,"a":[1,2]}\n{"id":3,"a":[1';
  assert.deepEqual(parseJsonLines(text, "x.jsonl", hasId, "a record"), {
    records: [{ id: 1 }, { id: 2, a: [1, 2] }],
    torn: 4,
  });
  // a whole file ends with a newline: every record is kept, nothing torn
  assert.deepEqual(parseJsonLines('{"id":1}\n{"id":2}\n', "x.jsonl", hasId, "a record"), {
    records: [{ id: 1 }, { id: 2 }],
  });
});

Deno.test("parseJsonLines(): a bad line before the last, or a line that is not a record, is a DataError naming it", () => {
  const cases: [string, RegExp][] = [
    ['{"id":1}\n{"id":\n{"id":3}\n', /^x\.jsonl line 2 is not JSON \(/],
    ['{"id":1}\n{"id":\n', /^x\.jsonl line 2 is not JSON/], // torn, then a newline: not the last append
    ['{"id":1}\n{"id":"one"}\n', /^x\.jsonl line 2 is not a record with an id$/],
    ["[1]\n", /^x\.jsonl line 1 is not a record with an id$/],
    ["null\n", /line 1 is not a record with an id/],
  ];
  for (const [text, message] of cases) {
    assert.throws(() => parseJsonLines(text, "x.jsonl", hasId, "a record with an id"), (e: unknown) => {
      assert.ok(e instanceof DataError);
      assert.match(e.message, message);
      return true;
    });
  }
});

Deno.test("readJsonLines(): a missing file has no records; the text comes back as read", async () => {
  const dir = await Deno.makeTempDir();
  assert.deepEqual(await readJsonLines(`${dir}/none.jsonl`, hasId, "a record"), { records: [], text: "" });
  await Deno.writeTextFile(`${dir}/x.jsonl`, '{"id":1}\n{"id":2');
  assert.deepEqual(await readJsonLines(`${dir}/x.jsonl`, hasId, "a record"), {
    records: [{ id: 1 }],
    torn: 2,
    text: '{"id":1}\n{"id":2',
  });
  await assert.rejects(() => readJsonLines(dir, hasId, "a record"), DataError); // a folder cannot be read
});
