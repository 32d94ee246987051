import assert from "node:assert/strict";
import { generateWorld } from "../../lib/env/world.ts";
import { buildQaSplits, makeSubQuestion, objectivePool, TEMPLATES } from "../../lib/env/questions.ts";
import { buildCorpus } from "../../lib/env/world.ts";
import { buildSearchIndex } from "../../lib/env/search.ts";

Deno.test("buildQaSplits() is deterministic; test subjects never appear in training questions", () => {
  const w = generateWorld(3);
  const a = buildQaSplits(w, { seed: 3, trainCount: 300, testCount: 10 });
  assert.deepEqual(buildQaSplits(w, { seed: 3, trainCount: 300, testCount: 10 }).train, a.train);
  for (const q of a.train) {
    assert.equal(q.targets.length, 2);
    assert.equal(new Set(q.subQuestions.map((s) => s.subject)).size, 2, "distinct subjects");
    for (const s of q.subQuestions) assert.ok(!a.testSubjects.has(s.subject), `${s.subject} is a test subject`);
  }
  for (const [k, qs] of a.test) {
    for (const q of qs) {
      assert.equal(q.subQuestions.length, k);
      // the objectives' texts joined by ";", each objective's place recorded as its marker (the data files' field)
      assert.equal(q.question, q.subQuestions.map((s) => s.text).join(" ; "));
      assert.deepEqual(q.subQuestions.map((s) => s.marker), q.subQuestions.map((_, i) => `q${i + 1}`));
      for (const s of q.subQuestions) assert.ok(a.testSubjects.has(s.subject));
    }
  }
  assert.deepEqual([...a.test.keys()], [1, 2, 4, 6, 8]);
  assert.throws(() => buildQaSplits(w, { testFraction: 1 }), /testFraction must be in \(0, 1\)/);
  const mixed = buildQaSplits(w, { seed: 3, trainCount: 5, testCount: 1, trainObjectives: [1, 2, 3] });
  assert.deepEqual(mixed.train.map((q) => q.targets.length), [1, 2, 3, 1, 2]);
  assert.throws(
    () => buildQaSplits(w, { trainObjectives: [] }),
    /trainObjectives must be positive integers, current value is \[\]/,
  );
  assert.throws(() => buildQaSplits(w, { trainObjectives: [2, 0] }), /current value is \[2,0\]/);
});

Deno.test("buildQaSplits({ validCount }): validation subjects out of training and test, the test sets unchanged", () => {
  const w = generateWorld(5);
  const options = { seed: 5, trainCount: 400, testCount: 6, distinctAnswers: true };
  const plain = buildQaSplits(w, options);
  assert.deepEqual(buildQaSplits(w, { ...options, validCount: 0 }), plain, "validCount 0 is no split");
  assert.equal(plain.valid.size, 0);
  assert.equal(plain.validSubjects.size, 0);
  const split = buildQaSplits(w, { ...options, validCount: 4 });
  assert.deepEqual(split.test, plain.test, "the test sets are those without a split");
  assert.deepEqual(split.testSubjects, plain.testSubjects);
  assert.equal(split.train.length, 400);
  assert.notDeepEqual(split.train, plain.train);
  // 15 % of each type's non-test entities (at least one): 8 countries, 32 cities, 100 people, 40 companies and films
  // keep 2, 10, 30, 12, 12 for testing, and 1, 3, 11 (10.5 rounded up), 4, 4 of the rest for validation
  assert.equal(split.validSubjects.size, 23);
  for (const s of split.validSubjects) assert.ok(!split.testSubjects.has(s), `${s} is a test subject`);
  const trainSubjects = new Set(split.train.flatMap((q) => q.subQuestions.map((s) => s.subject)));
  for (const s of split.validSubjects) assert.ok(!trainSubjects.has(s), `${s} is asked about in training`);
  assert.ok(
    plain.train.some((q) => q.subQuestions.some((s) => split.validSubjects.has(s.subject))),
    "taken from training",
  );
  assert.deepEqual([...split.valid.keys()], [1, 2, 4, 6, 8]);
  for (const [k, qs] of split.valid) {
    assert.equal(qs.length, 4);
    for (const q of qs) {
      assert.equal(q.subQuestions.length, k);
      assert.equal(q.question, q.subQuestions.map((s) => s.text).join(" ; "));
      for (const s of q.subQuestions) {
        assert.ok(split.validSubjects.has(s.subject), `${s.subject} is not a validation subject`);
      }
    }
  }
  assert.deepEqual(buildQaSplits(w, { ...options, validCount: 4 }), split, "deterministic");
  // a type's last training entity stays in training: the quick world's 2 countries keep 1 for testing, 1 for training
  const small = generateWorld(5, { countries: 2, cities: 4, people: 8, companies: 4, films: 4 });
  const few = buildQaSplits(small, { validCount: 1, testObjectives: [1, 4] });
  for (const type of ["country", "city", "person", "company", "film"]) {
    const left = small.entities.filter((e) =>
      e.type === type && !few.testSubjects.has(e.name) && !few.validSubjects.has(e.name)
    );
    assert.ok(left.length >= 1, `${type} keeps a training entity`);
  }
  assert.equal(few.validSubjects.size, 4, "countries give none: 0 + 1 + 1 + 1 + 1");
  assert.throws(
    () => buildQaSplits(w, { ...options, validCount: -1 }),
    /validCount must be an integer ≥ 0, current value is -1/,
  );
  assert.throws(
    () =>
      buildQaSplits(generateWorld(5, { countries: 8, cities: 16, people: 20, companies: 10, films: 10 }), {
        validCount: 1,
        testFraction: 0.5,
        testObjectives: [1, 8],
      }),
    /6 validation subjects \(validFraction 0.15\) cannot make 8-objective questions/,
  );
});

Deno.test("makeSubQuestion() follows 1- and 2-hop paths; every template is answerable", () => {
  const w = generateWorld(4);
  for (const [type, templates] of Object.entries(TEMPLATES)) {
    const subject = w.entities.find((e) => e.type === type)!;
    for (const t of templates) {
      const q = makeSubQuestion(w, subject.name, t);
      assert.equal(q.hops.length, t.path.length);
      assert.equal(q.hops[0]!.entity, subject.name);
      assert.equal(q.answer, q.hops.at(-1)!.answer);
      assert.ok(q.text.includes(subject.name));
    }
  }
  const city = w.entities.find((e) => e.type === "city")!;
  assert.throws(() => makeSubQuestion(w, city.name, TEMPLATES.person[0]!), /is not a person/);
});

Deno.test("search returns the document that states the fact first for every hop of every question", () => {
  const w = generateWorld(5);
  const index = buildSearchIndex(buildCorpus(w));
  const s = buildQaSplits(w, { seed: 5, trainCount: 400, testCount: 20 });
  let hops = 0;
  for (const q of [...s.train, ...[...s.test.values()].flat()]) {
    for (const sub of q.subQuestions) {
      for (const h of sub.hops) {
        const [first] = index.search(`${h.entity} ${h.relation}`, 3);
        assert.ok(first!.text.startsWith(`${h.entity} ${h.relation} ${h.answer} .`), `${h.entity} ${h.relation}`);
        hops++;
      }
    }
  }
  assert.ok(hops > 1000);
});

Deno.test("objectivePool(): every training question's objectives in order, as many as the questions have", () => {
  const w = generateWorld(3);
  const { train } = buildQaSplits(w, { seed: 3, trainCount: 40, testCount: 4 });
  const pool = objectivePool(train);
  assert.equal(pool.length, train.reduce((n, q) => n + q.subQuestions!.length, 0));
  assert.deepEqual(pool.slice(0, train[0]!.subQuestions!.length), train[0]!.subQuestions);
  assert.deepEqual(pool.at(-1), train.at(-1)!.subQuestions!.at(-1));
  assert.deepEqual(objectivePool([{}, { subQuestions: [] }]), []);
});
