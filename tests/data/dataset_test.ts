import assert from "node:assert/strict";
import * as arrow from "apache-arrow";
import * as pq from "parquet-wasm";
import { readCorpus, readDataset, writeCorpus, writeDataset } from "../../lib/data/dataset.ts";

const str = new arrow.Utf8();
const f = (n: string, t: arrow.DataType) => new arrow.Field(n, t, true);
const list = (t: arrow.DataType) => new arrow.List(f("item", t));
async function writeTable(columns: Record<string, arrow.Vector>): Promise<string> {
  const path = await Deno.makeTempFile({ suffix: ".parquet" });
  await Deno.writeFile(
    path,
    pq.writeParquet(pq.Table.fromIPCStream(arrow.tableToIPC(new arrow.Table(columns), "stream"))),
  );
  return path;
}
const promptType = list(new arrow.Struct([f("role", str), f("content", str)]));

Deno.test("writeDataset() → readDataset() round-trips every field, with verl's schema", async () => {
  const path = await Deno.makeTempFile({ suffix: ".parquet" });
  const sub = {
    text: "who founded x ?",
    subject: "x",
    answer: "y",
    hops: [{ entity: "x", relation: "founder" as const, answer: "y" }],
  };
  await writeDataset(path, [
    {
      prompt: [{ role: "system", content: "s" }, { role: "user", content: "who founded x ?" }],
      question: "who founded x ?",
      targets: [["y"]],
      split: "train",
      index: 7,
      subQuestions: [sub],
    },
    { prompt: [{ role: "user", content: "q2" }], question: "q2", targets: [["a", "b"], ["c"]] },
    {
      prompt: [{ role: "user", content: "q3" }],
      question: "q3",
      targets: [["y"]],
      subQuestions: [{ ...sub, marker: "q5" }],
    },
  ]);
  const [a, b, c] = await readDataset(path);
  // a marker is kept; a sub-question without one reads back without the field (not null, not "")
  assert.deepEqual(c!.subQuestions, [{ ...sub, marker: "q5" }]);
  assert.ok(!("marker" in a!.subQuestions![0]!));
  assert.deepEqual(a, {
    prompt: [{ role: "system", content: "s" }, { role: "user", content: "who founded x ?" }],
    question: "who founded x ?",
    targets: [["y"]],
    dataSource: "mempo-lab",
    split: "train",
    index: 7,
    subQuestions: [sub],
  });
  assert.deepEqual(b!.targets, [["a", "b"], ["c"]]);
  const table = arrow.tableFromIPC(pq.readParquet(await Deno.readFile(path)).intoIPCStream());
  assert.deepEqual(table.schema.fields.map((x) => x.name), [
    "data_source",
    "prompt",
    "ability",
    "reward_model",
    "extra_info",
  ]);
});

Deno.test("readDataset() reads verl / Search-R1, MEM1 and plain question/target files", async () => {
  // Search-R1: target is a list of aliases (one objective)
  const searchR1 = await writeTable({
    id: arrow.vectorFromArray(["train_0"], str),
    question: arrow.vectorFromArray(["who wrote x?"], str),
    golden_answers: arrow.vectorFromArray([["A. B.", "ab"]], list(str)),
    data_source: arrow.vectorFromArray(["nq"], str),
    prompt: arrow.vectorFromArray([[{ role: "user", content: "Answer the given question. who wrote x?" }]], promptType),
    ability: arrow.vectorFromArray(["fact-reasoning"], str),
    reward_model: arrow.vectorFromArray(
      [{ style: "rule", ground_truth: { target: ["A. B.", "ab"] } }],
      new arrow.Struct([f("style", str), f("ground_truth", new arrow.Struct([f("target", list(str))]))]),
    ),
    extra_info: arrow.vectorFromArray(
      [{ split: "train", index: 0n }],
      new arrow.Struct([f("split", str), f("index", new arrow.Int64())]),
    ),
  });
  const [r] = await readDataset(searchR1);
  assert.deepEqual(r!.targets, [["A. B.", "ab"]]);
  assert.equal(r!.question, "Answer the given question. who wrote x?");
  assert.equal(r!.dataSource, "nq");
  assert.equal(r!.index, 0);
  // verl GSM8K style: ground_truth is a string
  const gsm = await writeTable({
    prompt: arrow.vectorFromArray([[{ role: "user", content: "1+1?" }]], promptType),
    reward_model: arrow.vectorFromArray(
      [{ style: "rule", ground_truth: "2" }],
      new arrow.Struct([f("style", str), f("ground_truth", str)]),
    ),
  });
  assert.deepEqual((await readDataset(gsm))[0]!.targets, [["2"]]);
  // MEM1: a list of alias lists, one per objective
  const mem1 = await writeTable({
    prompt: arrow.vectorFromArray([[{ role: "user", content: "q1 ; q2" }]], promptType),
    reward_model: arrow.vectorFromArray(
      [{ ground_truth: { target: [["a1"], ["b1", "b2"]] } }],
      new arrow.Struct([f("ground_truth", new arrow.Struct([f("target", list(list(str)))]))]),
    ),
  });
  assert.deepEqual((await readDataset(mem1))[0]!.targets, [["a1"], ["b1", "b2"]]);
  // plain columns
  const plainFile = await writeTable({
    question: arrow.vectorFromArray(["capital of x?"], str),
    target: arrow.vectorFromArray(["y"], str),
  });
  assert.deepEqual(await readDataset(plainFile), [{
    prompt: [{ role: "user", content: "capital of x?" }],
    question: "capital of x?",
    targets: [["y"]],
  }]);
});

Deno.test("readDataset() names the file and the column for malformed, truncated and wrong-schema files", async () => {
  const good = await Deno.makeTempFile({ suffix: ".parquet" });
  await writeDataset(good, [{ prompt: [{ role: "user", content: "q" }], question: "q", targets: [["a"]] }]);
  const bytes = await Deno.readFile(good);
  const truncated = await Deno.makeTempFile({ suffix: ".parquet" });
  await Deno.writeFile(truncated, bytes.slice(0, bytes.length - 20));
  await assert.rejects(
    readDataset(truncated),
    new RegExp(`Cannot read dataset ${truncated}: not a valid Parquet file or truncated`),
  );
  const text = await Deno.makeTempFile({ suffix: ".parquet" });
  await Deno.writeTextFile(text, "question,target\nq,a\n");
  await assert.rejects(readDataset(text), /not a valid Parquet file/);
  const noTarget = await writeTable({ question: arrow.vectorFromArray(["q"], str) });
  await assert.rejects(readDataset(noTarget), /needs a "reward_model" or a "target" column, found question/);
  const noQuestion = await writeTable({ target: arrow.vectorFromArray(["a"], str) });
  await assert.rejects(readDataset(noQuestion), /needs a "prompt" or a "question" column/);
  const badTarget = await writeTable({
    question: arrow.vectorFromArray(["q"], str),
    target: arrow.vectorFromArray([[]], list(str)),
  });
  await assert.rejects(readDataset(badTarget), /row 0: column "target": Invalid targets/);
  const noUser = await writeTable({
    prompt: arrow.vectorFromArray([[{ role: "system", content: "s" }]], promptType),
    target: arrow.vectorFromArray(["a"], str),
  });
  await assert.rejects(readDataset(noUser), /row 0: column "prompt" has no user message/);
});

Deno.test("writeCorpus() / readCorpus() round trip; corpus without contents refused", async () => {
  const path = await Deno.makeTempFile({ suffix: ".parquet" });
  const docs = [{ id: "a", text: "a is a city ." }, { id: "b", text: "b is a film ." }];
  await writeCorpus(path, docs);
  assert.deepEqual(await readCorpus(path), docs);
  const bad = await writeTable({ id: arrow.vectorFromArray(["a"], str) });
  await assert.rejects(readCorpus(bad), /needs a "contents" column/);
});
