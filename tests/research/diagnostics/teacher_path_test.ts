import assert from "node:assert/strict";
import { decode, encode } from "../../../lib/text/tokenizer.ts";
import { documentSubject } from "../../../lib/env/world.ts";
import { createTeacher, type MemoryFormat } from "../../../lib/env/teacher.ts";
import { type AgentPolicy, type Episode, runEpisodes } from "../../../lib/env/rollout.ts";
import { tasksFromRecords } from "../../../lib/train/demos.ts";
import { partAt, pathCells, teacherPath } from "../../../research/diagnostics/teacher_path.ts";
import { teacherTestTurns } from "../../_helpers.ts";
import { modelPreset } from "../../../lib/model/config.ts";
import { createModel, trainableVariables } from "../../../lib/model/params.ts";
import { createAdamW } from "../../../lib/optim/adamw.ts";
import { collateLm, disposeLmBatch } from "../../../lib/train/collate.ts";
import { sftStep } from "../../../lib/train/sft.ts";
import { modelPolicy } from "../../../lib/env/model_policy.ts";

const MAX_TURN_TOKENS = 64;

/**
 * The teacher without drops, but in the episodes `wrong` holds (by the task's group id) its turn `turn` writes `word`
 * in place of the `n`-th word of the part `part` names (`open`: the memory's first word; `answers`: the word after
 * `|`; `action`: the word after `<think>`).
 */
function corrupting(
  data: Awaited<ReturnType<typeof teacherTestTurns>>["data"],
  memory: MemoryFormat,
  wrong: ReadonlySet<string | number>,
  turn: number,
  part: "open" | "answers" | "action",
  word: string,
): AgentPolicy {
  const teacher = createTeacher(data.tokenizer, { dropProbability: 0, memory });
  return {
    async nextTurns(requests, options) {
      const out = await teacher.nextTurns(requests, options);
      return out.map((o, i) => {
        const e = requests[i]!.episode;
        if (!wrong.has(e.task.groupId) || e.turns.length !== turn) return o;
        const words = decode(data.tokenizer, o.tokens).split(" ");
        const at = part === "open" ? 0 : words.indexOf(part === "answers" ? "|" : "<think>") + 1;
        words[at] = word;
        const tokens = encode(data.tokenizer, words.join(" ")).ids;
        return { tokens, logProbs: tokens.map(() => 0) };
      });
    },
  };
}

/** How many of the policy's free-running episodes on the test set of `objectives` write every turn as `teacher`'s do. */
async function freeRunsOnPath(
  policy: AgentPolicy,
  data: Awaited<ReturnType<typeof teacherTestTurns>>["data"],
  objectives: number,
  teacher: readonly Episode[],
): Promise<number> {
  const free = await runEpisodes(policy, tasksFromRecords(data.test.get(objectives)!), data, {
    contextPolicy: "memory",
    maxTurns: 40,
    maxTurnTokens: MAX_TURN_TOKENS,
  });
  return free.filter((f, i) =>
    f.turns.length === teacher[i]!.turns.length &&
    f.turns.every((t, k) => t.sampled.join() === teacher[i]!.turns[k]!.sampled.join())
  ).length;
}

Deno.test("teacherPath(): the teacher is on its own path at every turn; turns changed in some episodes leave it there, in the part changed", async () => {
  const memory = "state-relations";
  const { data, episodes } = await teacherTestTurns(3, 4, 6, { memory, data: { sizes: { distractors: 0 } } });
  const exact = await teacherPath(
    createTeacher(data.tokenizer, { dropProbability: 0, memory }),
    data.tokenizer,
    episodes,
    {
      maxTurnTokens: MAX_TURN_TOKENS,
    },
  );
  assert.equal(exact.onPath, 6);
  assert.ok(exact.byTurn.every((t) => t.exact === t.total));
  assert.deepEqual(
    exact.byTurn.map((t) => t.total),
    exact.byTurn.map((_, t) => episodes.filter((e) => e.turns.length > t).length),
  );

  const name = documentSubject(data.corpus.at(-1)!); // a name, in the tokenizer
  const groups = episodes.map((e) => e.task.groupId);
  for (const [part, turn, wrong] of [["open", 0, [0, 1]], ["answers", 2, [2]], ["action", 1, [1, 3, 5]]] as const) {
    const ids = new Set(wrong.map((i) => groups[i]!));
    const policy = corrupting(data, memory, ids, turn, part, name);
    const path = await teacherPath(policy, data.tokenizer, episodes, { maxTurnTokens: MAX_TURN_TOKENS });
    assert.equal(path.onPath, 6 - wrong.length, part);
    assert.equal(path.byTurn[turn]!.exact, path.byTurn[turn]!.total - wrong.length, part);
    assert.deepEqual(path.byTurn[turn]!.first, { open: 0, answers: 0, action: 0, [part]: wrong.length }, part);
    // each leave: the episode, the turn, the part, the teacher's word and the one written in its place
    assert.deepEqual(
      path.leaves.map((l) => [l.episode, l.turn, l.part, l.got]),
      wrong.map((i) => [i, turn, part, name]),
    );
    assert.ok(path.leaves.every((l) => l.want !== name && l.want !== ""));
    if (part === "open") assert.ok(path.leaves.every((l) => l.after === ""), "the list's first word");
    if (part === "action") assert.ok(path.leaves.every((l) => l.after === "<think>"));
    // the other turns are exact (the changed turn's episodes are still the teacher's at their later turns)
    assert.ok(path.byTurn.every((t) => t.turn === turn || t.exact === t.total), part);
    // the identity the diagnostic rests on: the episodes on the path are those the policy, run freely, writes as the
    // teacher does, turn for turn
    assert.equal(await freeRunsOnPath(policy, data, 4, episodes), path.onPath, part);
  }
});

Deno.test("teacherPath(): an episode leaving the path twice counts once, at its first inexact turn", async () => {
  const memory = "state-relations";
  const { data, episodes } = await teacherTestTurns(5, 2, 3, { memory, data: { sizes: { distractors: 0 } } });
  const name = documentSubject(data.corpus.at(-1)!);
  const first = corrupting(data, memory, new Set([episodes[0]!.task.groupId]), 1, "answers", name);
  const both: AgentPolicy = {
    async nextTurns(requests, options) {
      const a = await first.nextTurns(requests, options);
      const b = await corrupting(data, memory, new Set([episodes[0]!.task.groupId]), 0, "action", name).nextTurns(
        requests,
        options,
      );
      return requests.map((r, i) => (r.episode.turns.length === 0 ? b[i]! : a[i]!));
    },
  };
  const path = await teacherPath(both, data.tokenizer, episodes, { maxTurnTokens: MAX_TURN_TOKENS });
  assert.equal(path.onPath, 2);
  assert.deepEqual([path.byTurn[0]!.first, path.byTurn[1]!.first], [{ open: 0, answers: 0, action: 1 }, {
    open: 0,
    answers: 0,
    action: 0,
  }]);
  assert.deepEqual([path.byTurn[0]!.exact, path.byTurn[1]!.exact], [2, 2]);
  assert.deepEqual(pathCells(path).slice(0, 1), ["67% (3)"]);
});

Deno.test("partAt(): the open list before `|`, the answers after it, the action after `</mem>`; a turn that stops early is in the part it stops in", async () => {
  const { data } = await teacherTestTurns(1, 1, 1);
  const turn = encode(data.tokenizer, "| </mem> <think> answer </think>").ids;
  assert.equal(partAt(data.tokenizer, turn, 0), "open"); // the `|` itself: the open list ends there
  assert.equal(partAt(data.tokenizer, turn, 1), "answers"); // the `</mem>` itself: the answers end there
  assert.equal(partAt(data.tokenizer, turn, 2), "action");
  assert.equal(partAt(data.tokenizer, turn, turn.length), "action");
  const name = documentSubject(data.corpus[0]!);
  const memory = encode(data.tokenizer, `${name} born | ${name}`).ids; // stops inside the answers
  assert.deepEqual([0, 1, 2, 3, 4].map((i) => partAt(data.tokenizer, memory, i)), [
    "open",
    "open",
    "open",
    "answers",
    "answers",
  ]);
});

Deno.test("teacherPath(): a model's path read in one teacher-forced pass is the one greedy decoding writes, and its episodes on the path are those the free-running greedy agent reproduces", async () => {
  const memory = "state-relations";
  const { data, sequences, episodes } = await teacherTestTurns(4, 2, 8, {
    memory,
    data: { sizes: { distractors: 0 } },
  });
  // a tiny model trained on these very turns until some of them, not all, come out whole
  const model = createModel(modelPreset("tiny", data.tokenizer.size), { seed: 2 });
  const optimizer = createAdamW(trainableVariables(model), { lr: 1e-2 });
  const batch = collateLm(sequences, data.tokenizer.padId);
  const options = { maxTurnTokens: MAX_TURN_TOKENS };
  let path = await teacherPath(model, data.tokenizer, episodes, options);
  const exactTurns = () => path.byTurn.reduce((n, t) => n + t.exact, 0);
  for (let step = 0; step < 1000 && (path.onPath === 0 || exactTurns() < 10); step += 20) {
    for (let k = 0; k < 20; k++) await sftStep(model, optimizer, batch);
    path = await teacherPath(model, data.tokenizer, episodes, options);
  }
  disposeLmBatch(batch);
  optimizer.dispose();
  const exact = exactTurns();
  const turns = path.byTurn.reduce((n, t) => n + t.total, 0);
  assert.ok(exact > 0 && exact < turns, `exact turns ${exact} of ${turns}`);
  const greedy = modelPolicy(model, { padId: data.tokenizer.padId, temperature: 0 });
  assert.deepEqual(await teacherPath(greedy, data.tokenizer, episodes, options), path);
  assert.equal(await freeRunsOnPath(greedy, data, 2, episodes), path.onPath);
  model.dispose();
});
