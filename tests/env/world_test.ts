import assert from "node:assert/strict";
import {
  buildCorpus,
  corpusNames,
  documentSubject,
  factDocuments,
  generateWorld,
  type Relation,
  RELATIONS,
} from "../../lib/env/world.ts";

Deno.test("generateWorld() is deterministic per seed, consistent, and uses unique one-token names", () => {
  const a = generateWorld(11);
  assert.deepEqual(generateWorld(11), a);
  assert.notDeepEqual(generateWorld(12).entities.map((e) => e.name), a.entities.map((e) => e.name));
  assert.equal(a.byName.size, a.entities.length);
  for (const e of a.entities) {
    assert.match(e.name, /^[a-z]+$/);
    for (const [rel, target] of Object.entries(e.facts)) {
      const spec = RELATIONS[rel as keyof typeof RELATIONS];
      assert.equal(spec.from, e.type);
      assert.equal(a.byName.get(target!)?.type, spec.to, `${e.name} ${rel} ${target}`);
    }
  }
  // each country's capital is one of its cities
  for (const c of a.entities.filter((e) => e.type === "country")) {
    assert.equal(a.byName.get(c.facts.capital!)!.facts.located, c.name);
  }
  assert.throws(() => generateWorld(1, { cities: 2, countries: 5 }), /cities \(2\) must be ≥ countries \(5\)/);
  assert.throws(() => generateWorld(1, { people: 0 }), /people must be a positive integer/);
});

Deno.test("factDocuments() states each fact as a `name keyword answer .` triple, one a document, with the distractors", () => {
  const w = generateWorld(4, { lives: 1 });
  const corpus = buildCorpus(w);
  // 100 people and 40 companies have two facts each: 220 entities, 360 documents
  assert.equal(corpus.length, 360);
  assert.equal(new Set(corpus.map((d) => d.id)).size, 360);
  for (const e of w.entities) {
    const docs = factDocuments(e);
    const facts = Object.entries(e.facts) as [Relation, string][];
    assert.equal(docs.length, facts.length, e.name);
    for (const d of docs) {
      const sentences = d.text.split(" . ").map((s) => s.replace(/ \.$/, "").split(" "));
      // one fact, first, then the two distractor sentences, which never use a relation keyword
      assert.ok(sentences[0]![1]! in RELATIONS, d.text);
      assert.ok(sentences.slice(1).every((s) => s.every((word) => !(word in RELATIONS))), d.text);
      assert.equal(sentences.length, 3, d.text);
      assert.ok(sentences.every((s) => s[0] === e.name), d.text);
      assert.equal(documentSubject(d), e.name);
      const [, rel, obj] = sentences[0]!;
      assert.equal(e.facts[rel as Relation], obj, d.text);
      assert.equal(d.id, facts.length === 1 ? e.name : `${e.name}.${rel}`);
    }
  }
  const company = w.entities.find((e) => e.type === "company")!;
  assert.deepEqual(factDocuments({ ...company, traits: [] }).map((d) => d.text), [
    `${company.name} founder ${company.facts.founder} .`,
    `${company.name} headquarters ${company.facts.headquarters} .`,
  ]);
  assert.deepEqual(corpusNames(corpus), w.entities.map((e) => e.name));
  assert.equal(buildCorpus(generateWorld(2)).length, 260, "without lives only the 40 companies have two facts");
});

Deno.test("generateWorld() with a name pool deals the same names to new roles with new facts", () => {
  const main = generateWorld(3);
  const names = main.entities.map((e) => e.name);
  const aux = generateWorld(4, {}, undefined, names);
  assert.deepEqual(aux.entities.map((e) => e.name).sort(), [...names].sort());
  assert.equal(aux.byName.size, names.length);
  const sameRole = aux.entities.filter((e) => main.byName.get(e.name)!.type === e.type).length;
  assert.ok(sameRole < names.length / 2, `${sameRole} of ${names.length} names kept their type`);
  const sameFacts =
    aux.entities.filter((e) => JSON.stringify(e.facts) === JSON.stringify(main.byName.get(e.name)!.facts)).length;
  assert.ok(sameFacts < 10, `${sameFacts} entities kept their facts`);
  assert.deepEqual(generateWorld(4, {}, undefined, names), aux);
  assert.throws(
    () => generateWorld(4, {}, undefined, names.slice(0, 50)),
    /Invalid name pool: 220 entities need 220 distinct names, current pool has 50/,
  );
});
