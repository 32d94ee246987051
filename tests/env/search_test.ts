import assert from "node:assert/strict";
import { buildSearchIndex, formatInformation, NO_RESULTS } from "../../lib/env/search.ts";
import { buildCorpus, DECOY_RELATION, generateWorld, type Relation } from "../../lib/env/world.ts";

const docs = [
  { id: "kalmar", text: "kalmar is a city . kalmar is located in vestria ." },
  { id: "zorbex", text: "zorbex is a person . zorbex was born in kalmar ." },
  { id: "vestria", text: "vestria is a country . the capital of vestria is kalmar ." },
];

Deno.test("search ranks by BM25: the rarer the matched term and the more occurrences, the higher", () => {
  const index = buildSearchIndex(docs);
  assert.equal(index.size, 3);
  assert.equal(index.search("kalmar located")[0]!.id, "kalmar");
  assert.equal(index.search("zorbex born")[0]!.id, "zorbex");
  assert.equal(index.search("vestria capital")[0]!.id, "vestria");
  assert.deepEqual(index.search("Kalmar", 1).map((h) => h.id), ["kalmar"]); // two occurrences beat one
  const all = index.search("kalmar", 5);
  assert.equal(all.length, 3);
  assert.ok(all[0]!.score >= all[1]!.score && all[1]!.score >= all[2]!.score);
});

Deno.test("search over one fact a document: the fact asked first, the subject's other fact second", () => {
  for (const seed of [0, 1]) {
    const w = generateWorld(seed, { distractors: 0, lives: 1 });
    const index = buildSearchIndex(buildCorpus(w));
    let pairs = 0;
    for (const e of w.entities) {
      const facts = Object.entries(e.facts) as [Relation, string][];
      for (const [rel, obj] of facts) {
        const hits = index.search(`${e.name} ${rel}`).map((h) => h.text);
        assert.equal(hits[0], `${e.name} ${rel} ${obj} .`, `${e.name} ${rel}`);
        if (facts.length === 2) {
          const [other, value] = facts.find(([r]) => r !== rel)!;
          assert.equal(hits[1], `${e.name} ${other} ${value} .`, `${e.name} ${rel}`);
          // a person's other city is the decoy the memory decision is about
          if (e.type === "person") assert.equal(DECOY_RELATION[rel], other);
          pairs += 1;
        }
      }
    }
    assert.equal(pairs, 2 * (100 + 40)); // every person's and company's two facts, each asked once
  }
});

Deno.test("search: empty results, formatting, bad input", () => {
  const index = buildSearchIndex(docs);
  assert.deepEqual(index.search("nothing here"), []);
  assert.deepEqual(index.search("  ;; "), []);
  assert.equal(formatInformation(index.search("nothing")), `<information>${NO_RESULTS}</information>`);
  assert.equal(
    formatInformation(index.search("kalmar located", 2)),
    // second: one "kalmar" each in the other two documents; the shorter one wins (BM25 length normalisation)
    "<information>[Doc 1] kalmar is a city . kalmar is located in vestria .\n[Doc 2] zorbex is a person . zorbex was born in kalmar .</information>",
  );
  assert.throws(() => index.search("x", 0), /topK must be a positive integer, current value is 0/);
  assert.throws(() => buildSearchIndex([...docs, docs[0]!]), /document id "kalmar" appears twice/);
});
