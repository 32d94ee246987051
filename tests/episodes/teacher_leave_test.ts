import assert from "node:assert/strict";
import { buildData, loadData } from "../../lib/data/build.ts";
import { createTeacher } from "../../lib/env/teacher.ts";
import { runEpisodes } from "../../lib/env/rollout.ts";
import { tasksFromRecords } from "../../lib/train/demos.ts";
import { teacherLeave } from "../../lib/episodes/teacher_leave.ts";

const dir = await Deno.makeTempDir();
await buildData(dir, 5, { trainCount: 2, testCount: 2, testObjectives: [2] });
const data = await loadData(dir);
const teacher = createTeacher(data.tokenizer, { dropProbability: 0 });
const [task] = tasksFromRecords(data.test.get(2)!);
const [episode] = await runEpisodes(teacher, [task!], data, { contextPolicy: "memory", maxTurns: 12 });
const words = episode!.turns.map((t) => t.sampled.map((id) => data.tokenizer.tokens[id]!));

Deno.test("teacherLeave(): the teacher's own 2-objective episode never leaves; a changed word is found where it is", async () => {
  assert.equal(words.length, 3, "two searches, then the answer");
  assert.equal(await teacherLeave(teacher, data.tokenizer, task!, words), null);
  // turn 2, token 2 replaced: the leave is there, though the turn after it is the teacher's again
  const changed = words.map((w) => [...w]);
  const want = changed[1]![1]!;
  changed[1]![1] = "zzz";
  assert.deepEqual(await teacherLeave(teacher, data.tokenizer, task!, changed), {
    turn: 1,
    token: 1,
    want,
    got: "zzz",
  });
});

Deno.test("teacherLeave(): a turn that stops early or runs on leaves at the first missing or extra word", async () => {
  const short = [words[0]!.slice(0, 3)];
  assert.deepEqual(await teacherLeave(teacher, data.tokenizer, task!, short), {
    turn: 0,
    token: 3,
    want: words[0]![3]!,
    got: "",
  });
  const long = [[...words[0]!, "extra"]];
  assert.deepEqual(await teacherLeave(teacher, data.tokenizer, task!, long), {
    turn: 0,
    token: words[0]!.length,
    want: "",
    got: "extra",
  });
  // a policy that stops before the teacher's last turn has not left the path in the turns it wrote
  assert.equal(await teacherLeave(teacher, data.tokenizer, task!, words.slice(0, 2)), null);
});

Deno.test("teacherLeave(): a task the teacher cannot write (no sub-questions) gives undefined", async () => {
  assert.equal(await teacherLeave(teacher, data.tokenizer, { ...task!, subQuestions: undefined }, words), undefined);
});
