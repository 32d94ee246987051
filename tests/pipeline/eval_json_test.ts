import assert from "node:assert/strict";
import { DataError } from "../../lib/errors.ts";
import { readEvalJson, trainingTimings } from "../../lib/pipeline/eval_json.ts";

const runWith = async (text: string | undefined) => {
  const dir = await Deno.makeTempDir();
  if (text !== undefined) await Deno.writeTextFile(`${dir}/eval.json`, text);
  return dir;
};

Deno.test("readEvalJson(): missing is undefined; an object is returned; anything else is refused with its path", async () => {
  assert.equal(await readEvalJson(await runWith(undefined), "x"), undefined);
  assert.deepEqual(await readEvalJson(await runWith('{"rows": [1], "timings": {}}'), "x"), { rows: [1], timings: {} });
  const refused: [string, RegExp][] = [
    ['{"rows": [', /^Cannot compare r: .*\/eval\.json is not valid JSON \(/],
    ["null", /eval\.json is damaged \(not a JSON object: null\)/],
    ["[1, 2]", /eval\.json is damaged \(not a JSON object: \[1,2\]\)/],
    ['"text"', /eval\.json is damaged \(not a JSON object: "text"\)/],
  ];
  for (const [text, message] of refused) {
    const dir = await runWith(text);
    await assert.rejects(
      () => readEvalJson(dir, "compare r"),
      (e: Error) => e instanceof DataError && message.test(e.message),
    );
    assert.equal(await Deno.readTextFile(`${dir}/eval.json`), text, "left as it was");
  }
});

Deno.test("trainingTimings(): the training stages in recorded order, without eval and groups; bad timings named", async () => {
  assert.deepEqual(await trainingTimings(await runWith(undefined)), {});
  assert.deepEqual(await trainingTimings(await runWith('{"rows": []}')), {}, "no timings: none");
  const dir = await runWith(JSON.stringify({ timings: { data: 1.5, eval: 90, sft: 1334.7, groups: 24, mempo: 80 } }));
  const kept = await trainingTimings(dir);
  assert.deepEqual(kept, { data: 1.5, sft: 1334.7, mempo: 80 });
  assert.deepEqual(Object.keys(kept), ["data", "sft", "mempo"]);
  const refused: [string, RegExp][] = [
    ['{"timings": null}', /timings must map stages to seconds, current value is null/],
    ['{"timings": [1]}', /timings must map stages to seconds, current value is \[1\]/],
    ['{"timings": {"sft": "slow"}}', /timings must map stages to seconds, current value of sft is "slow"/],
    ['{"timings": {"data": 1, "sft": null}}', /current value of sft is null/],
    ["{", /^Cannot keep the training times: .*eval\.json is not valid JSON/],
  ];
  for (const [text, message] of refused) {
    await assert.rejects(
      async () => await trainingTimings(await runWith(text)),
      (e: Error) => e instanceof DataError && message.test(e.message),
      text,
    );
  }
});
