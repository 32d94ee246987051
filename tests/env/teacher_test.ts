import assert from "node:assert/strict";
import {
  createTeacher,
  droppedObjectives,
  FORGOTTEN,
  MEMORY_FORMATS,
  parseStateMemory,
  stateTeacherTurn,
} from "../../lib/env/teacher.ts";
import { generateWorld } from "../../lib/env/world.ts";
import { buildQaSplits, makeSubQuestion, TEMPLATES } from "../../lib/env/questions.ts";
import { parseTurn } from "../../lib/env/format.ts";
import { buildTokenizer } from "../../lib/text/tokenizer.ts";

Deno.test("droppedObjectives() is seeded by the question and follows the drop rate", () => {
  assert.deepEqual(droppedObjectives("q1", 8, { seed: 1 }), droppedObjectives("q1", 8, { seed: 1 }));
  let dropped = 0;
  for (let i = 0; i < 500; i++) dropped += droppedObjectives(`question ${i}`, 4).size;
  assert.ok(Math.abs(dropped / 2000 - 0.3) < 0.04, `rate ${dropped / 2000}`);
  assert.throws(() => droppedObjectives("q", 2, { dropProbability: 2 }), /dropProbability/);
});

Deno.test("stateTeacherTurn(): the open objectives then the answers found; one search per hop; drops become unknown", () => {
  const w = generateWorld(6);
  const person = w.entities.find((e) => e.type === "person")!;
  const film = w.entities.find((e) => e.type === "film")!;
  const subs = [
    makeSubQuestion(w, person.name, TEMPLATES.person[1]!), // born, then located: two hops
    makeSubQuestion(w, film.name, TEMPLATES.film[0]!),
  ];
  const turns = [0, 1, 2, 3].map((t) => stateTeacherTurn(subs, t, new Set([0])));
  assert.equal(stateTeacherTurn(subs, 4, new Set()), null);
  const city = person.facts.born!;
  assert.deepEqual(turns.map((t) => t!.mem), [
    `${person.name} born located ; ${film.name} director |`, // the question's objectives, each with its relations
    `${city} located ; ${film.name} director |`, // the first hop read: the open objective rewritten (entity, relation left)
    `${film.name} director | ${subs[0]!.answer}`, // popped, its answer appended (fresh: kept this turn)
    `| ${FORGOTTEN} ; ${film.facts.director}`, // objective 1 is now earlier and dropped
  ]);
  // bare: the same memories with no ";"
  assert.deepEqual(
    [0, 1, 2, 3].map((t) => stateTeacherTurn(subs, t, new Set([0]), { bare: true })!.mem),
    turns.map((t) => t!.mem.replaceAll(" ;", "")),
  );
  assert.deepEqual(turns.map((t) => t!.think), [
    `${person.name} born`,
    `${city} located`,
    `${film.name} director`,
    "answer",
  ]);
  assert.deepEqual(turns.map((t) => t!.content), [
    `${person.name} born`,
    `${city} located`,
    `${film.name} director`,
    `${FORGOTTEN} ; ${film.facts.director}`,
  ]);
  for (const t of turns) {
    const text = `<mem> ${t!.mem} </mem> <think> ${t!.think} </think> <${t!.action}> ${t!.content} </${t!.action}>`;
    assert.ok(parseTurn(text).ok, text);
  }
  assert.equal(stateTeacherTurn(subs, 3, new Set())!.content, `${subs[0]!.answer} ; ${subs[1]!.answer}`);
});

for (const bare of [false, true]) {
  const style = bare ? "bare" : "with ;";
  Deno.test(`stateTeacherTurn() ${style}: every turn after the first is the same operation on the previous memory, at 1 to 8 objectives`, () => {
    const w = generateWorld(9);
    const { test } = buildQaSplits(w, { testCount: 12, testObjectives: [1, 2, 3, 4, 5, 6, 7, 8], seed: 3 });
    const parse = (mem: string) => {
      const { open, answers } = parseStateMemory(mem);
      return { open, done: answers };
    };
    const teacher = (subs: Parameters<typeof stateTeacherTurn>[0], t: number) =>
      stateTeacherTurn(subs, t, new Set(), { bare });
    let checked = 0;
    for (const [k, qs] of test) {
      for (const q of qs) {
        const subs = q.subQuestions;
        const first = parse(teacher(subs, 0)!.mem);
        // the question's subjects, all distinct, with the relations to follow
        assert.deepEqual(first.open, subs.map((s) => [s.subject, ...s.hops.map((h) => h.relation)]));
        assert.equal(new Set(subs.map((s) => s.subject)).size, k);
        assert.deepEqual(first.done, []);
        assert.equal(first.open.length, k);
        let prev = first;
        for (let t = 1;; t++) {
          const turn = teacher(subs, t);
          if (turn === null) break;
          const cur = parse(turn.mem);
          const [head, ...rest] = prev.open;
          const i = prev.done.length; // the objective being resolved
          const hops = subs[i]!.hops.length;
          const headWasSubject = head![0] === subs[i]!.subject && head!.length === hops + 1;
          if (headWasSubject && hops === 2) { // a first hop read: the head becomes the entity found and the relation left
            assert.deepEqual(cur.open.slice(1), rest);
            assert.deepEqual(cur.open[0], [subs[i]!.hops[1]!.entity, subs[i]!.hops[1]!.relation]);
            assert.deepEqual(cur.done, prev.done);
          } else { // its last hop read: pop it, append its answer, copy the rest
            assert.deepEqual(cur.open, rest);
            assert.deepEqual(cur.done, [...prev.done, subs[i]!.answer]);
          }
          // the think (and the search) name the first open objective's next hop (its first two words), or answer
          // from memory
          const next = cur.open[0];
          assert.equal(turn.think, next === undefined ? "answer" : `${next[0]} ${next[1]}`);
          if (turn.action === "search") assert.equal(turn.content, turn.think);
          // bare: no ";" in the memory; else one between items and one between answers
          const semicolons = turn.mem.split(" ").filter((w) => w === ";").length;
          assert.equal(semicolons, bare ? 0 : Math.max(0, cur.open.length - 1) + Math.max(0, cur.done.length - 1));
          if (turn.action === "answer") assert.equal(turn.content, cur.done.join(" ; "));
          prev = cur;
          checked += 1;
        }
        assert.deepEqual(prev.done, subs.map((s) => s.answer));
      }
    }
    assert.ok(checked > 400, `${checked} turns checked`);
  });
}

for (const format of MEMORY_FORMATS) {
  Deno.test(`parseStateMemory(): reads back every memory stateTeacherTurn writes as ${format} (1-8 objectives, with drops), word for word`, () => {
    const w = generateWorld(9);
    const { test } = buildQaSplits(w, { testCount: 6, testObjectives: [1, 2, 3, 4, 5, 6, 7, 8], seed: 5 });
    const bare = format === "state-relations-bare";
    const sep = bare ? " " : " ; ";
    let checked = 0;
    let rewritten = 0;
    for (const { subs, dropped, turn } of teacherMemories(test, bare)) {
      const { open, answers } = parseStateMemory(turn.mem);
      // the round trip: the items and the answers, joined as the teacher joins them, are the memory again
      const sides = [open.map((item) => item.join(" ")).join(sep), "|", answers.join(sep)];
      assert.equal(sides.filter((p) => p !== "").join(" "), turn.mem);
      assert.deepEqual(parseStateMemory(turn.mem.split(" ")), { open, answers }, "words and text read alike");
      // each open item is a subject with its relations, or (only the head, the first) the entity found and the one
      // relation left
      const bySubject = new Map(subs.map((s) => [s.subject, s]));
      open.forEach((item, j) => {
        const s = bySubject.get(item[0]!);
        if (s !== undefined && item.length === s.hops.length + 1) return;
        assert.equal(j, 0, "only the head is rewritten");
        assert.equal(item.length, 2);
        rewritten += 1;
      });
      // the answers: one per objective resolved (the first ones), in the question's order, a dropped one as
      // FORGOTTEN once no longer fresh
      assert.equal(open.length + answers.length, subs.length);
      answers.forEach((a, i) => assert.ok(a === subs[i]!.answer || (dropped.has(i) && a === FORGOTTEN), a));
      checked += 1;
    }
    assert.ok(checked > 200 && rewritten > 20, `${checked} memories, ${rewritten} rewritten heads`);
  });
}

/** Every turn the state teacher writes for the test questions, with 0.5 drops (seed 1). */
function* teacherMemories(test: ReturnType<typeof buildQaSplits>["test"], bare: boolean) {
  for (const qs of test.values()) {
    for (const q of qs) {
      const subs = q.subQuestions;
      const dropped = droppedObjectives(q.question, subs.length, { dropProbability: 0.5, seed: 1 });
      for (let t = 0;; t++) {
        const turn = stateTeacherTurn(subs, t, dropped, { bare });
        if (turn === null) break;
        yield { subs, dropped, t, turn };
      }
    }
  }
}

Deno.test("parseStateMemory(): edge cases", () => {
  assert.deepEqual(parseStateMemory("a b"), { open: [["a"], ["b"]], answers: [] }, "no bar: all open");
  assert.deepEqual(parseStateMemory("born x |"), { open: [["born"], ["x"]], answers: [] }, "a leading relation word");
  assert.deepEqual(parseStateMemory("|"), { open: [], answers: [] }, "nothing open, nothing found");
});

Deno.test("createTeacher(): the two memory formats, each as stateTeacherTurn writes it; a retired format is refused, naming the two", async () => {
  const w = generateWorld(6);
  const person = w.entities.find((e) => e.type === "person")!;
  const film = w.entities.find((e) => e.type === "film")!;
  const subs = [
    makeSubQuestion(w, person.name, TEMPLATES.person[0]!),
    makeSubQuestion(w, film.name, TEMPLATES.film[0]!),
  ];
  const tok = buildTokenizer([w.entities.map((e) => e.name).join(" "), "born director | ; answer"]);
  const task = { question: subs.map((q) => q.text).join(" ; "), targets: subs.map((q) => [q.answer]), groupId: 0 };
  const first = async (memory: (typeof MEMORY_FORMATS)[number]) => {
    const episode = { id: 0, task: { ...task, subQuestions: subs }, turns: [] } as never;
    const [out] = await createTeacher(tok, { memory, dropProbability: 0 }).nextTurns([{ episode, context: [] }], {
      maxNewTokens: 64,
      stopIds: [],
      seed: 0,
    });
    return out!.tokens.map((id) => tok.tokens[id]).join(" ");
  };
  assert.equal(
    await first("state-relations"),
    `${person.name} born ; ${film.name} director | </mem> <think> ${person.name} born </think> <search> ${person.name} born </search>`,
  );
  assert.equal(
    await first("state-relations-bare"),
    `${person.name} born ${film.name} director | </mem> <think> ${person.name} born </think> <search> ${person.name} born </search>`,
  );
  for (const memory of ["slots", "state", "state-stack", "state-chain", "state-chain-bare", "state-chain-linked"]) {
    assert.throws(
      () => createTeacher(tok, { memory: memory as never }),
      new RegExp(`memory must be one of "state-relations", "state-relations-bare", current value is "${memory}"`),
    );
  }
});
