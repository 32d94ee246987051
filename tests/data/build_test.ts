import assert from "node:assert/strict";
import { buildData, DATA_VERSION, loadData } from "../../lib/data/build.ts";
import { encode } from "../../lib/text/tokenizer.ts";
import { corpusNames } from "../../lib/env/world.ts";
import { DataError } from "../../lib/errors.ts";

Deno.test("buildData() writes a deterministic data directory that loadData() reads back", async () => {
  const a = await Deno.makeTempDir();
  const b = await Deno.makeTempDir();
  const m = await buildData(a, 5, { trainCount: 30, testCount: 4 });
  await buildData(b, 5, { trainCount: 30, testCount: 4 });
  for (const f of ["corpus.parquet", "train.parquet", "test_8obj.parquet", "tokenizer.json", "manifest.json"]) {
    assert.deepEqual(await Deno.readFile(`${a}/${f}`), await Deno.readFile(`${b}/${f}`), f);
  }
  assert.deepEqual(m.test, { "1obj": 4, "2obj": 4, "4obj": 4, "6obj": 4, "8obj": 4 });
  assert.equal(m.version, DATA_VERSION, "the manifest records the generator version (stale directories are rebuilt)");
  const data = await loadData(a);
  assert.equal(data.corpus.length, 260); // 220 entities, 40 companies of two facts
  assert.equal(data.search.size, 260);
  assert.equal(data.tokenizer.size, m.vocabSize);
  for (const r of [...data.train, ...[...data.test.values()].flat()]) {
    assert.equal(encode(data.tokenizer, r.question).unknown, 0);
    assert.ok(r.subQuestions && r.subQuestions.length === r.targets.length);
  }
  assert.ok(data.corpus.every((d) => encode(data.tokenizer, d.text).unknown === 0));
  await Deno.remove(`${a}/train.parquet`);
  await assert.rejects(loadData(a), /Cannot read dataset .*train.parquet/);
});

Deno.test("buildData({ validCount }): validation sets beside the same test sets; loadData() reads either split", async () => {
  const plain = await Deno.makeTempDir();
  const split = await Deno.makeTempDir();
  const options = { trainCount: 40, testCount: 3, testObjectives: [1, 4], auxWorlds: 1 };
  const mp = await buildData(plain, 7, options);
  const ms = await buildData(split, 7, { ...options, validCount: 2 });
  assert.equal(mp.valid, undefined, "no validation sets without validCount");
  assert.deepEqual(ms.valid, { "1obj": 2, "4obj": 2 });
  assert.equal(ms.validSubjects, 23);
  const [p, v, t] = [await loadData(plain), await loadData(split, { split: "valid" }), await loadData(split)];
  assert.equal(p.split, "test");
  assert.equal(t.split, "test");
  assert.equal(v.split, "valid");
  assert.deepEqual(t.test, p.test, "the test sets are those built without a split");
  assert.deepEqual(t.aux[0]!.train, p.aux[0]!.train, "the auxiliary worlds take no validation subjects");
  assert.deepEqual([...v.test.keys()], [1, 4]);
  assert.deepEqual(v.test.get(4)!.map((r) => [r.split, r.index, r.targets.length]), [["valid_4obj", 0, 4], [
    "valid_4obj",
    1,
    4,
  ]]);
  const subjects = (rs: { subQuestions?: { subject: string }[] }[]) =>
    new Set(rs.flatMap((r) => r.subQuestions!.map((q) => q.subject)));
  const validSubjects = subjects([...v.test.values()].flat());
  for (const s of subjects(v.train)) assert.ok(!validSubjects.has(s), `${s} is asked about in training`);
  for (const s of subjects([...t.test.values()].flat())) assert.ok(!validSubjects.has(s), `${s} is a test subject`);
  for (const r of [...v.test.values()].flat()) assert.equal(encode(v.tokenizer, r.question).unknown, 0);
  await assert.rejects(
    loadData(plain, { split: "valid" }),
    (e) => e instanceof DataError && /no validation sets .*rebuild it with data\.validCount > 0/.test(e.message),
  );
  await assert.rejects(
    loadData(plain, { split: "fit" as "valid" }),
    /split must be one of test, valid, train, current value is "fit"/,
  );
});

Deno.test("loadData({ split: 'train' }): the training questions' objectives joined to the test sizes, seeded", async () => {
  const dir = await Deno.makeTempDir();
  await buildData(dir, 4, {
    trainCount: 60,
    testCount: 5,
    testObjectives: [1, 3, 6],
    distinctAnswers: true,
  });
  const data = await loadData(dir, { split: "train" });
  assert.equal(data.split, "train");
  assert.deepEqual([...data.test].map(([k, rs]) => [k, rs.length]), [[1, 5], [3, 5], [6, 5]]);
  const trainSubjects = new Set(data.train.flatMap((r) => r.subQuestions!.map((q) => q.subject)));
  const testSubjects = new Set(
    [...(await loadData(dir)).test.values()].flat().flatMap((r) => r.subQuestions!.map((q) => q.subject)),
  );
  for (const [k, rs] of data.test) {
    for (const [i, r] of rs.entries()) {
      assert.deepEqual([r.split, r.index, r.targets.length], [`train_${k}obj`, i, k]);
      assert.equal(r.question, r.subQuestions!.map((q) => q.text).join(" ; "), "the data's format: texts and ;");
      const names = r.subQuestions!.flatMap((q) => [q.subject, q.answer]);
      assert.equal(new Set(names).size, 2 * k, "distinct subjects and answers, as the data's questions");
      for (const q of r.subQuestions!) {
        assert.ok(trainSubjects.has(q.subject) && !testSubjects.has(q.subject), q.subject);
        assert.deepEqual(r.targets[r.subQuestions!.indexOf(q)], [q.answer]);
      }
    }
  }
  assert.deepEqual((await loadData(dir, { split: "train" })).test, data.test, "the same sets every time");
  // a manifest that holds the retired question options (written before they left, docs/design.md#retired) still
  // loads: they are not read, and the sets are the same
  const path = `${dir}/manifest.json`;
  const manifest = JSON.parse(await Deno.readTextFile(path));
  assert.equal("markers" in manifest.options, false);
  manifest.options = { ...manifest.options, markers: false, subjectIndex: false };
  await Deno.writeTextFile(path, JSON.stringify(manifest, null, 2));
  assert.deepEqual((await loadData(dir, { split: "train" })).test, data.test);
});

Deno.test("buildData() auxiliary worlds re-deal the main world's names with their own facts and corpus", async () => {
  const dir = await Deno.makeTempDir();
  const m = await buildData(dir, 6, {
    trainCount: 12,
    testCount: 2,
    testObjectives: [1],
    auxWorlds: 2,
    auxObjectives: [1, 3],
  });
  assert.equal(m.auxWorlds, 2);
  const data = await loadData(dir);
  assert.equal(data.aux.length, 2);
  const mainNames = corpusNames(data.corpus).sort();
  const mainText = new Set(data.corpus.map((d) => d.text));
  for (const a of data.aux) {
    assert.deepEqual(corpusNames(a.corpus).sort(), mainNames);
    assert.ok(a.corpus.filter((d) => mainText.has(d.text)).length < 10, "documents state new facts");
    assert.equal(a.train.length, 12);
    assert.deepEqual(a.train.slice(0, 4).map((r) => r.targets.length), [1, 3, 1, 3], "auxObjectives are cycled");
    assert.equal(a.search.size, a.corpus.length);
    assert.ok(a.train.every((r) => encode(data.tokenizer, r.question).unknown === 0));
  }
  assert.notDeepEqual(data.aux[0]!.corpus, data.aux[1]!.corpus);
  assert.ok(data.train.every((r) => r.targets.length === 2), "the main training set keeps trainObjectives (2)");
});

Deno.test("buildData(): the manifest goes first and comes back last; loadData() names a damaged manifest or tokenizer", async () => {
  const dir = await Deno.makeTempDir();
  await buildData(dir, 3, { trainCount: 4, testCount: 1, testObjectives: [1] });
  assert.ok(await Deno.stat(`${dir}/manifest.json`));
  // a build that fails (or is killed) part-way leaves no manifest: the half-written data is never taken for the old
  await assert.rejects(buildData(dir, 3, { trainCount: 4, testCount: 1, testObjectives: [1], sizes: { people: 0 } }));
  await assert.rejects(Deno.stat(`${dir}/manifest.json`), Deno.errors.NotFound);
  await assert.rejects(
    loadData(dir),
    (e: Error) => e instanceof DataError && /no manifest\.json \(run deno task data\)/.test(e.message),
  );
  await buildData(dir, 3, { trainCount: 4, testCount: 1, testObjectives: [1] });
  await Deno.writeTextFile(`${dir}/manifest.json`, '{"test": {"1obj"');
  await assert.rejects(
    loadData(dir),
    (e: Error) =>
      e instanceof DataError &&
      /^.*\/manifest\.json is not valid JSON \(.*\); rebuild it with deno task data$/.test(e.message),
  );
  await buildData(dir, 3, { trainCount: 4, testCount: 1, testObjectives: [1] });
  await Deno.writeTextFile(`${dir}/tokenizer.json`, "{}");
  await assert.rejects(loadData(dir), /Cannot load data from .*: tokenizer\.json is damaged/);
  await Deno.writeTextFile(`${dir}/tokenizer.json`, '{"model": ');
  await assert.rejects(
    loadData(dir),
    (e: Error) =>
      e instanceof DataError &&
      /^.*\/tokenizer\.json is not valid JSON \(.*\); rebuild it with deno task data$/.test(e.message),
  );
});
