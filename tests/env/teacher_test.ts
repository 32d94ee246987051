import assert from "node:assert/strict";
import {
  chainTeacherTurn,
  droppedObjectives,
  FORGOTTEN,
  isStateMemory,
  MEMORY_FORMATS,
  parseStateMemory,
  type StateLayout,
  stateLayout,
  stateTeacherTurn,
  teacherTurn,
} from "../../lib/env/teacher.ts";
import { generateWorld, RELATIONS } from "../../lib/env/world.ts";
import { buildQaSplits, makeSubQuestion, type SubQuestion, TEMPLATES } from "../../lib/env/questions.ts";
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
    `${person.name} ${film.name} |`, // the question's subjects, in order
    `${city} located ${film.name} |`, // the first hop read: the open objective rewritten (entity, relation left)
    `${film.name} | ${subs[0]!.answer}`, // popped, its answer appended (fresh: kept this turn)
    `| ${FORGOTTEN} ${film.facts.director}`, // objective 1 is now earlier and dropped
  ]);
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

for (const relations of [false, true]) {
  const style = relations ? "with relations" : "subjects only";
  Deno.test(`stateTeacherTurn() ${style}: every turn after the first is the same operation on the previous memory, at 1 to 8 objectives`, () => {
    const w = generateWorld(9);
    const { test } = buildQaSplits(w, { testCount: 12, testObjectives: [1, 2, 3, 4, 5, 6, 7, 8], seed: 3 });
    const parse = (mem: string) => {
      const { open, answers } = parseStateMemory(mem);
      return { open, done: answers };
    };
    const teacher = (subs: Parameters<typeof stateTeacherTurn>[0], t: number) =>
      stateTeacherTurn(subs, t, new Set(), { relations });
    let checked = 0;
    for (const [k, qs] of test) {
      for (const q of qs) {
        const subs = q.subQuestions;
        const first = parse(teacher(subs, 0)!.mem);
        // the question's subjects, all distinct (with the relations to follow)
        assert.deepEqual(
          first.open,
          subs.map((s) => relations ? [s.subject, ...s.hops.map((h) => h.relation)] : [s.subject]),
        );
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
          const headWasSubject = head![0] === subs[i]!.subject && head!.length === (relations ? hops + 1 : 1);
          if (headWasSubject && hops === 2) { // a first hop read: the head becomes the entity found and the relation left
            assert.deepEqual(cur.open.slice(1), rest);
            assert.deepEqual(cur.open[0], [subs[i]!.hops[1]!.entity, subs[i]!.hops[1]!.relation]);
            assert.deepEqual(cur.done, prev.done);
          } else { // its last hop read: pop it, append its answer, copy the rest
            assert.deepEqual(cur.open, rest);
            assert.deepEqual(cur.done, [...prev.done, subs[i]!.answer]);
          }
          // the think (and the search) name the first open objective's next hop, or answer from memory
          const next = cur.open[0];
          assert.equal(
            turn.think,
            next === undefined ? "answer" : `${next[0]} ${next[1] ?? subs[cur.done.length]!.hops[0]!.relation}`,
          );
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

Deno.test("stateTeacherTurn() on the stack: every turn works on the memory's last item, next to </mem>, at 1 to 8 objectives", () => {
  const w = generateWorld(9);
  const { test } = buildQaSplits(w, { testCount: 12, testObjectives: [1, 2, 3, 4, 5, 6, 7, 8], seed: 3 });
  const layout = { relations: true, stack: true };
  const parse = (mem: string) => parseStateMemory(mem, { stack: true });
  const item = (s: SubQuestion, read: number) => [s.hops[read]!.entity, ...s.hops.slice(read).map((h) => h.relation)];
  let checked = 0;
  for (const [k, qs] of test) {
    for (const q of qs) {
      const subs = q.subQuestions;
      const firstTurn = stateTeacherTurn(subs, 0, new Set(), layout)!;
      // the first memory: "|" then the question's objectives in order, each with its relations
      assert.ok(firstTurn.mem.startsWith("| "), firstTurn.mem);
      assert.deepEqual(parse(firstTurn.mem), { open: subs.map((s) => item(s, 0)), answers: [] });
      let prev = parse(firstTurn.mem);
      let think = firstTurn.think;
      for (let t = 1;; t++) {
        const turn = stateTeacherTurn(subs, t, new Set(), layout);
        if (turn === null) break;
        const cur = parse(turn.mem);
        // the think named the last open item's entity and its first relation left
        const head = prev.open.at(-1)!;
        assert.equal(think, `${head[0]} ${head[1]}`);
        const i = prev.open.length - 1; // the objective being resolved: the last one open
        if (head.length === 3) { // a first hop read: the head becomes the entity found and the relation left
          assert.deepEqual(cur.open, [...prev.open.slice(0, -1), item(subs[i]!, 1)]);
          assert.deepEqual(cur.answers, prev.answers);
        } else { // its last hop read: pop it, write its answer first, copy the rest
          assert.deepEqual(cur.open, prev.open.slice(0, -1));
          assert.deepEqual(cur.answers, [subs[i]!.answer, ...prev.answers]);
        }
        if (turn.action === "answer") {
          assert.equal(turn.think, "answer");
          assert.equal(turn.content, cur.answers.join(" ; "));
        } else assert.equal(turn.content, turn.think);
        prev = cur;
        think = turn.think;
        checked += 1;
      }
      assert.deepEqual(prev, { open: [], answers: subs.map((s) => s.answer) }, `${k} objectives`);
    }
  }
  assert.ok(checked > 400, `${checked} turns checked`);
});

for (const format of ["state-chain", "state-chain-bare", "state-chain-linked"] as const) {
  Deno.test(`chainTeacherTurn() as ${format}: the answers, then the chain of the objective in progress; each value right after the words searched; each decision at a fixed place, at 1 to 8 objectives`, () => {
    const w = generateWorld(9);
    const { test } = buildQaSplits(w, {
      testCount: 12,
      testObjectives: [1, 2, 3, 4, 5, 6, 7, 8],
      seed: 3,
      distinctAnswers: true,
      subjectIndex: true,
      markers: false,
    });
    const layout = stateLayout(format);
    const parse = (mem: string) => parseStateMemory(mem, layout);
    const isRelation = (word: string | undefined) => word !== undefined && word in RELATIONS;
    let checked = 0;
    let nextHops = 0;
    for (const [k, qs] of test) {
      for (const q of qs) {
        const subs = q.subQuestions;
        // the question's names are distinct, and it starts with its subjects
        assert.equal(new Set(subs.flatMap((s) => [s.subject, s.answer])).size, 2 * k, q.question);
        const index = q.question.slice(0, q.question.indexOf(" : ")).split(" ");
        assert.deepEqual(index, subs.map((s) => s.subject));
        const firstTurn = chainTeacherTurn(subs, 0, new Set(), layout)!;
        // nothing read yet: an empty memory; the think names the first subject of the list and its relations
        assert.deepEqual(firstTurn, stateTeacherTurn(subs, 0, new Set(), layout));
        assert.equal(firstTurn.mem, "|");
        let prev = { mem: parse(firstTurn.mem), text: firstTurn.mem, think: firstTurn.think.split(" ") };
        for (let t = 1;; t++) {
          const turn = chainTeacherTurn(subs, t, new Set(), layout);
          if (turn === null) break;
          const cur = parse(turn.mem);
          const chain = cur.open[0]!;
          const before = prev.mem.open[0];
          // every edit at the end: the previous memory's answers are this one's first words
          const carried = prev.text.slice(0, prev.text.indexOf("|")).trim();
          assert.ok(turn.mem.startsWith(carried), `${turn.mem} keeps ${carried}`);
          // bare: the answers are single words with no separator, so each has one successor in the list
          const list = turn.mem.slice(0, turn.mem.indexOf("|")).trim().split(" ").filter(Boolean);
          if (layout.bare) assert.deepEqual(list, cur.answers);
          else assert.equal(list.length, Math.max(0, 2 * cur.answers.length - 1));
          if (before !== undefined && isRelation(before.at(-1))) {
            // the previous chain ended with a relation: copied, then the value after its last two words
            nextHops += 1;
            assert.deepEqual(chain.slice(0, -1), before);
            assert.deepEqual(cur.answers, prev.mem.answers);
          } else {
            // complete (or none): its value moves to the answers; the new chain is the think's words, the value read
            // after its first two
            assert.deepEqual(cur.answers, before === undefined ? [] : [...prev.mem.answers, before.at(-1)]);
            // (linked: after the previous chain's subject, the key of the lookup)
            const query = layout.linked && before !== undefined ? prev.think.slice(1) : prev.think;
            if (layout.linked && before !== undefined) assert.equal(prev.think[0], before[0]);
            assert.deepEqual([...chain.slice(0, 2), ...chain.slice(3)], query);
          }
          // the value is the word the world gives for the entity and relation before it (the document's next word)
          const end = isRelation(chain.at(-1)) ? chain.length - 2 : chain.length - 1;
          const [entity, relation] = chain.slice(end - 2, end) as [string, keyof typeof RELATIONS];
          assert.equal(chain[end], w.byName.get(entity)!.facts[relation]);
          // the think: an incomplete chain's last two words; else the subject after the chain's in the list, with its
          // relations; else answer
          if (isRelation(chain.at(-1))) assert.equal(turn.think, chain.slice(-2).join(" "));
          else {
            const next = subs.find((s) => s.subject === index[index.indexOf(chain[0]!) + 1]);
            const named = next ? [next.subject, ...next.hops.map((h) => h.relation)].join(" ") : "answer";
            assert.equal(turn.think, layout.linked ? `${chain[0]} ${named}` : named);
            assert.ok(next !== undefined || turn.content === [...cur.answers, chain.at(-1)].join(" ; "));
          }
          if (turn.action === "search") {
            const from = layout.linked && !isRelation(chain.at(-1)) ? 1 : 0;
            assert.equal(turn.content, turn.think.split(" ").slice(from, from + 2).join(" "));
          }
          prev = { mem: cur, text: turn.mem, think: turn.think.split(" ") };
          checked += 1;
        }
        assert.deepEqual([...prev.mem.answers, prev.mem.open[0]!.at(-1)], subs.map((s) => s.answer), `${k} objectives`);
      }
    }
    assert.ok(checked > 400 && nextHops > 50, `${checked} turns checked, ${nextHops} next hops`);
  });
}

for (const format of MEMORY_FORMATS.filter(isStateMemory)) {
  Deno.test(`parseStateMemory(): reads back every memory stateTeacherTurn writes as ${format} (1-8 objectives, with drops), word for word`, () => {
    const w = generateWorld(9);
    const { test } = buildQaSplits(w, { testCount: 6, testObjectives: [1, 2, 3, 4, 5, 6, 7, 8], seed: 5 });
    const layout = stateLayout(format);
    if (layout.chain) return checkChainRoundTrip(test, layout);
    const sep = layout.relations && !layout.bare ? " ; " : " ";
    let checked = 0;
    let rewritten = 0;
    for (const { subs, dropped, turn } of teacherMemories(test, layout)) {
      const { open, answers } = parseStateMemory(turn.mem, layout);
      // the round trip: the items and the answers, joined as the teacher joins them, are the memory again
      const sides = [open.map((item) => item.join(" ")).join(sep), "|", answers.join(sep)];
      if (layout.stack) sides.reverse();
      assert.equal(sides.filter((p) => p !== "").join(" "), turn.mem);
      assert.deepEqual(
        parseStateMemory(turn.mem.split(" "), layout),
        { open, answers },
        "words and text read alike",
      );
      // each open item is a subject (with its relations), or the entity found and the one relation left (only
      // the head: first, or last on the stack)
      const bySubject = new Map(subs.map((s) => [s.subject, s]));
      open.forEach((item, j) => {
        const s = bySubject.get(item[0]!);
        if (s !== undefined && item.length === (layout.relations ? s.hops.length + 1 : 1)) return;
        assert.equal(j, layout.stack ? open.length - 1 : 0, "only the head is rewritten");
        assert.equal(item.length, 2);
        rewritten += 1;
      });
      // the answers: one per objective resolved (the first ones, or the last ones on the stack), in the
      // question's order, a dropped one as FORGOTTEN once no longer fresh
      assert.equal(open.length + answers.length, subs.length);
      const offset = layout.stack ? open.length : 0;
      answers.forEach((a, j) => {
        const i = offset + j;
        assert.ok(a === subs[i]!.answer || (dropped.has(i) && a === FORGOTTEN), a);
      });
      checked += 1;
    }
    assert.ok(checked > 200 && rewritten > 20, `${checked} memories, ${rewritten} rewritten heads`);
  });
}

/** Every turn the state teacher writes for the test questions, with 0.5 drops (seed 1). */
function* teacherMemories(test: ReturnType<typeof buildQaSplits>["test"], layout: ReturnType<typeof stateLayout>) {
  for (const qs of test.values()) {
    for (const q of qs) {
      const subs = q.subQuestions;
      const dropped = droppedObjectives(q.question, subs.length, { dropProbability: 0.5, seed: 1 });
      for (let t = 0;; t++) {
        const turn = stateTeacherTurn(subs, t, dropped, layout);
        if (turn === null) break;
        yield { subs, dropped, t, turn };
      }
    }
  }
}

/** The chain memory's round trip: the answers (a dropped one left out), `|`, the chain in progress. */
function checkChainRoundTrip(test: ReturnType<typeof buildQaSplits>["test"], layout: StateLayout): void {
  let checked = 0;
  let shorter = 0;
  for (const { subs, dropped, t, turn } of teacherMemories(test, layout)) {
    const { open, answers } = parseStateMemory(turn.mem, layout);
    const sides = [answers.join(layout.bare ? " " : " ; "), "|", open.map((item) => item.join(" ")).join(" ; ")];
    assert.equal(sides.filter((p) => p !== "").join(" "), turn.mem);
    assert.deepEqual(parseStateMemory(turn.mem.split(" "), layout), { open, answers }, "words and text read alike");
    // one chain (none before the first search); the answers: those of the objectives before its one, but the
    // dropped ones, in order
    assert.equal(open.length, t === 0 ? 0 : 1);
    const i = t === 0 ? 0 : subs.findIndex((s) => s.subject === open[0]![0]);
    assert.deepEqual(answers, subs.slice(0, i).filter((_, j) => !dropped.has(j)).map((s) => s.answer));
    if (answers.length < i) shorter += 1;
    if (turn.action === "answer") {
      assert.equal(
        turn.content.split(" ; ").length,
        subs.length - dropped.size + (dropped.has(subs.length - 1) ? 1 : 0),
      );
    }
    checked += 1;
  }
  assert.ok(checked > 200 && shorter > 20, `${checked} memories, ${shorter} with answers left out`);
}

Deno.test("parseStateMemory(): edge cases", () => {
  assert.deepEqual(parseStateMemory("a b"), { open: [["a"], ["b"]], answers: [] }, "no bar: all open");
  assert.deepEqual(parseStateMemory("born x |"), { open: [["born"], ["x"]], answers: [] }, "a leading relation word");
});

Deno.test("chainTeacherTurn() with done: an episode that continues a longer task starts at the plan's turn after the done objectives' hops, and ends with the same answer", () => {
  const w = generateWorld(9);
  const { test } = buildQaSplits(w, { testCount: 4, testObjectives: [2, 5], seed: 3, distinctAnswers: true });
  const layout = stateLayout("state-chain-bare");
  let checked = 0;
  for (const qs of test.values()) {
    for (const q of qs) {
      const subs = q.subQuestions;
      for (let done = 1; done < subs.length; done++) {
        const before = subs.slice(0, done).reduce((n, s) => n + s.hops.length, 0);
        for (let t = 0;; t++) {
          const turn = chainTeacherTurn(subs, t, new Set(), { ...layout, done });
          assert.deepEqual(turn, chainTeacherTurn(subs, t + before, new Set(), layout));
          if (turn === null) break;
          checked += 1;
        }
      }
      for (const done of [-1, 0.5, subs.length]) {
        assert.throws(
          () => chainTeacherTurn(subs, 0, new Set(), { ...layout, done }),
          new RegExp(`done must be an integer in \\[0, ${subs.length}\\).*current value is ${done}$`),
        );
      }
    }
  }
  assert.ok(checked > 40, `${checked} turns`);
});
