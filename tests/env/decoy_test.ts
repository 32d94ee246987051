// The memory decision: a person's two cities, one a document, read together in one search's results; one needed, the other a plausible wrong answer that the
// cold-start teacher keeps with sft.dropProbability (read back in tests/eval/kept_facts_test.ts).
import assert from "node:assert/strict";
import { buildCorpus, DECOY_RELATION, generateWorld, worldSizes } from "../../lib/env/world.ts";
import { buildQaSplits, makeSubQuestion, TEMPLATES } from "../../lib/env/questions.ts";
import { stateTeacherTurn } from "../../lib/env/teacher.ts";
import { readDataset, writeDataset } from "../../lib/data/dataset.ts";

const SIZES = { countries: 4, cities: 12, people: 30, companies: 6, films: 6, distractors: 0 };

Deno.test("a world with lives is the world without it plus one other city a person, in a document of its own", () => {
  const plain = generateWorld(5, SIZES);
  const lives = generateWorld(5, { ...SIZES, lives: 1 });
  assert.deepEqual(lives.entities.map((e) => e.name), plain.entities.map((e) => e.name));
  for (const [i, e] of lives.entities.entries()) {
    const { lives: city, ...rest } = e.facts;
    assert.deepEqual(rest, plain.entities[i]!.facts);
    if (e.type !== "person") assert.equal(city, undefined);
    else {
      assert.notEqual(city, e.facts.born);
      assert.equal(lives.byName.get(city!)?.type, "city");
    }
  }
  const person = lives.entities.find((e) => e.type === "person")!;
  const docs = buildCorpus(lives).filter((d) => d.id.startsWith(`${person.name}.`)).map((d) => d.text);
  assert.deepEqual(docs, [
    `${person.name} born ${person.facts.born} .`,
    `${person.name} lives ${person.facts.lives} .`,
  ]);
  assert.deepEqual(DECOY_RELATION, { born: "lives", lives: "born" });
  assert.throws(() => worldSizes({ lives: 2 }), /lives must be 0 or 1, current value is 2/);
  assert.throws(() => worldSizes({ lives: 1, cities: 1, countries: 1 }), /lives 1 needs at least 2 cities/);
});

Deno.test("questions: the lives template only where the world states it; the last hop's decoy is the other city", () => {
  const plain = generateWorld(2, SIZES);
  const lives = generateWorld(2, { ...SIZES, lives: 1 });
  const relations = (w: typeof plain) =>
    new Set(
      buildQaSplits(w, { seed: 1, trainCount: 200 }).train.flatMap((q) =>
        q.subQuestions.map((s) => s.hops[0]!.relation)
      ),
    );
  assert.ok(!relations(plain).has("lives"));
  assert.ok(relations(lives).has("lives"));
  // without lives the questions are the ones drawn before the relation existed (no decoys anywhere)
  const before = buildQaSplits(plain, { seed: 1, trainCount: 50 });
  assert.ok(before.train.every((q) => q.subQuestions.every((s) => s.hops.every((h) => h.decoy === undefined))));
  const person = lives.entities.find((e) => e.type === "person")!;
  const born = makeSubQuestion(lives, person.name, TEMPLATES.person[0]!);
  assert.deepEqual(born.hops, [{
    entity: person.name,
    relation: "born",
    answer: person.facts.born,
    decoy: person.facts.lives,
  }]);
  const twoHop = makeSubQuestion(lives, person.name, TEMPLATES.person[1]!); // born → located: the country has no decoy
  assert.equal(twoHop.hops.at(-1)!.decoy, undefined);
  // distinctAnswers: no decoy is another name of its question
  const { test } = buildQaSplits(lives, { seed: 3, testObjectives: [4], testCount: 20, distinctAnswers: true });
  for (const q of test.get(4)!) {
    const names = q.subQuestions.flatMap((
      s,
    ) => [s.subject, s.answer, ...(s.hops.at(-1)!.decoy === undefined ? [] : [s.hops.at(-1)!.decoy!])]);
    assert.equal(new Set(names).size, names.length, q.question);
  }
});

Deno.test("decoys survive the Parquet round trip; a hop without one reads back without the field", async () => {
  const w = generateWorld(4, { ...SIZES, lives: 1 });
  const { train } = buildQaSplits(w, { seed: 4, trainCount: 30 });
  const records = train.map((q) => ({
    prompt: [{ role: "user" as const, content: q.question }],
    question: q.question,
    targets: q.targets,
    subQuestions: q.subQuestions,
  }));
  const path = `${await Deno.makeTempDir()}/t.parquet`;
  await writeDataset(path, records);
  const back = await readDataset(path);
  assert.deepEqual(
    back.map((r) => r.subQuestions!.map((s) => s.hops)),
    train.map((q) => q.subQuestions.map((s) => s.hops)),
  );
  assert.ok(back.some((r) => r.subQuestions!.some((s) => s.hops.at(-1)!.decoy !== undefined)));
});

Deno.test("the teacher keeps a dropped objective's decoy from the turn it is read, and answers with it", () => {
  const w = generateWorld(7, { ...SIZES, lives: 1 });
  const people = w.entities.filter((e) => e.type === "person");
  const subs = [
    makeSubQuestion(w, people[0]!.name, TEMPLATES.person[0]!),
    makeSubQuestion(w, people[1]!.name, TEMPLATES.person[2]!),
  ];
  const [a, b] = subs.map((s) => s.hops[0]!);
  const layout = { bare: true };
  const turns = [1, 2].map((t) => stateTeacherTurn(subs, t, new Set([0]), layout)!);
  assert.deepEqual(turns.map((t) => t.mem), [`${b!.entity} lives | ${a!.decoy}`, `| ${a!.decoy} ${b!.answer}`]);
  assert.equal(turns[1]!.content, `${a!.decoy} ; ${b!.answer}`);
  // not dropped: the needed fact
  assert.equal(stateTeacherTurn(subs, 2, new Set(), layout)!.content, `${a!.answer} ; ${b!.answer}`);
});
