import assert from "node:assert/strict";
import { droppedObjectives, teacherTurn } from "../../lib/env/teacher.ts";
import { generateWorld } from "../../lib/env/world.ts";
import { makeSubQuestion, TEMPLATES } from "../../lib/env/questions.ts";
import { parseTurn } from "../../lib/env/format.ts";

Deno.test("teacherTurn() plans one search per hop, tracks memory slots, drops earlier answers", () => {
  const w = generateWorld(6);
  const person = w.entities.find((e) => e.type === "person")!;
  const film = w.entities.find((e) => e.type === "film")!;
  const subs = [
    makeSubQuestion(w, person.name, TEMPLATES.person[1]!),
    makeSubQuestion(w, film.name, TEMPLATES.film[0]!),
  ];
  const turns = [0, 1, 2, 3].map((t) => teacherTurn(subs, t, new Set([0])));
  assert.equal(teacherTurn(subs, 4, new Set()), null);
  assert.deepEqual(turns.map((t) => t!.mem), [
    "none",
    `q1 ~ ${person.name} born ${person.facts.born}`,
    `q1 = ${person.facts.born} located ${subs[0]!.answer}`, // fresh: just read, kept this turn
    `q2 = ${film.name} director ${film.facts.director}`, // objective 1 is now earlier and dropped
  ]);
  assert.deepEqual(turns.map((t) => t!.action), ["search", "search", "search", "answer"]);
  assert.equal(turns[1]!.content, `${person.facts.born} located`);
  // think: the objective, the entity to look up (the subject, then the entity found) and the relation
  assert.equal(turns[0]!.think, `q1 ${person.name} born`);
  assert.equal(turns[1]!.think, `q1 ${person.facts.born} located`);
  assert.equal(turns[2]!.think, `q2 ${film.name} director`);
  assert.equal(turns[3]!.content, `unknown ; ${film.facts.director}`);
  for (const t of turns) {
    const text = `<mem> ${t!.mem} </mem> <think> ${t!.think} </think> <${t!.action}> ${t!.content} </${t!.action}>`;
    assert.ok(parseTurn(text).ok, text);
  }
  const perfect = teacherTurn(subs, 3, new Set());
  assert.equal(perfect!.content, `${subs[0]!.answer} ; ${subs[1]!.answer}`);
});

Deno.test("teacherTurn() names each objective by its own marker in think, memory and the answer's order", () => {
  const w = generateWorld(6);
  const person = w.entities.find((e) => e.type === "person")!;
  const country = w.entities.find((e) => e.type === "country")!;
  const subs = [
    { ...makeSubQuestion(w, person.name, TEMPLATES.person[0]!), marker: "q3" },
    { ...makeSubQuestion(w, country.name, TEMPLATES.country[0]!), marker: "q7" },
  ];
  const turns = [0, 1, 2].map((t) => teacherTurn(subs, t, new Set()));
  assert.deepEqual(turns.map((t) => t!.think), [`q3 ${person.name} born`, `q7 ${country.name} capital`, "answer"]);
  assert.equal(
    turns[2]!.mem,
    `q3 = ${person.name} born ${person.facts.born} , q7 = ${country.name} capital ${country.facts.capital}`,
  );
  assert.equal(turns[2]!.content, `${person.facts.born} ; ${country.facts.capital}`);
});

Deno.test("droppedObjectives() is seeded by the question and follows the drop rate", () => {
  assert.deepEqual(droppedObjectives("q1", 8, { seed: 1 }), droppedObjectives("q1", 8, { seed: 1 }));
  let dropped = 0;
  for (let i = 0; i < 500; i++) dropped += droppedObjectives(`question ${i}`, 4).size;
  assert.ok(Math.abs(dropped / 2000 - 0.3) < 0.04, `rate ${dropped / 2000}`);
  assert.throws(() => droppedObjectives("q", 2, { dropProbability: 2 }), /dropProbability/);
});
