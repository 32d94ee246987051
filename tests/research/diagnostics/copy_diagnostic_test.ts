import assert from "node:assert/strict";
import { tf } from "../../../lib/tf.ts";
import { corpusNames } from "../../../lib/env/world.ts";
import { buildTokenizer, encode } from "../../../lib/text/tokenizer.ts";
import { createModel } from "../../../lib/model/params.ts";
import { modelPreset } from "../../../lib/model/config.ts";
import { forwardLogits } from "../../../lib/model/transformer.ts";
import { buildData, loadData } from "../../../lib/data/build.ts";
import { createTeacher } from "../../../lib/env/teacher.ts";
import {
  copyAccuracy,
  copyDiagnosticMarkdown,
  copyDiagnostics,
  labelPositions,
} from "../../../research/diagnostics/copy_diagnostic.ts";
import { teacherDemonstrations } from "../../../lib/train/demos.ts";
import { stepAccuracy } from "../../../research/diagnostics/step_diagnostic.ts";
import { teacherPath } from "../../../research/diagnostics/teacher_path.ts";
import type { AgentSpec } from "../../../lib/eval/evaluate.ts";

const tok = buildTokenizer(["zorbex kalo mirel born director none = 1 2 , ;"]);
const names = new Set(["zorbex", "kalo", "mirel"]);
const seq = (text: string, from: number) => {
  const ids = encode(tok, text).ids;
  return { tokens: ids, lossMask: ids.map((_, i) => (i >= from ? 1 : 0)) };
};
const seqs = [
  seq("<|user|> zorbex born <|assistant|> <mem> none </mem> <search> zorbex born </search>", 4),
  seq("<|user|> kalo director <|assistant|> <mem> 1 = mirel </mem> <think> kalo </think> <answer> mirel </answer>", 5),
];

Deno.test("labelPositions(): tag of the latest opening tag, name vs word, learned positions only", () => {
  const labels = labelPositions(tok, names, seqs[1]!);
  assert.deepEqual(labels.map(([, tag, kind]) => `${tag}/${kind}`), [
    "mem/word", // 1
    "mem/word", // =
    "mem/name", // mirel
    "mem/word", // </mem>
    "mem/word", // <think> (its own tag starts after it)
    "think/name", // kalo
    "think/word", // </think>
    "think/word", // <answer>
    "answer/name", // mirel
    "answer/word", // </answer>
  ]);
  assert.equal(labels[0]![0], 5);
  assert.deepEqual(labelPositions(tok, names, { tokens: [1, 2], lossMask: [1, 1] }).map(([i]) => i), [1]);
});

Deno.test("copyAccuracy() equals a slow loop of one forward per prefix", async () => {
  const model = createModel(modelPreset("tiny", tok.size), { seed: 4 });
  const before = tf.memory().numTensors;
  const cells = await copyAccuracy(model, tok, names, seqs);
  assert.equal(tf.memory().numTensors, before);
  const slow = new Map<string, [number, number]>();
  for (const s of seqs) {
    for (const [i, tag, kind] of labelPositions(tok, names, s)) {
      const logits = forwardLogits(model, tf.tensor2d([s.tokens.slice(0, i)], undefined, "int32"));
      const pred = (await tf.argMax(logits, -1).data()).at(-1);
      const e = slow.get(`${tag}/${kind}`) ?? [0, 0];
      slow.set(`${tag}/${kind}`, [e[0] + (pred === s.tokens[i] ? 1 : 0), e[1] + 1]);
    }
  }
  assert.deepEqual(
    Object.fromEntries(cells.map((c) => [`${c.tag}/${c.kind}`, [c.correct, c.total]])),
    Object.fromEntries(slow),
  );
  assert.deepEqual(cells.map((c) => `${c.tag}/${c.kind}`), [
    "mem/name",
    "mem/word",
    "think/name",
    "think/word",
    "search/name",
    "search/word",
    "answer/name",
    "answer/word",
    "other/word", // the first sequence's <mem>, learned before any tag opened
  ]);
  const md = copyDiagnosticMarkdown([{ objectives: 2, agents: { SFT: cells } }]);
  assert.match(md, /\| agent \| objectives \| mem\/name \| mem\/word \| think\/name/);
  model.dispose();
});

Deno.test("copyDiagnostics(): every test set in order, each model-backed agent once, the same cells as copyAccuracy on that set's teacher turns", async () => {
  const dir = await Deno.makeTempDir();
  await buildData(dir, 5, { trainCount: 6, testCount: 3, testObjectives: [4, 1, 2], sizes: { distractors: 0 } });
  const data = await loadData(dir);
  const a = createModel(modelPreset("tiny", data.tokenizer.size), { seed: 1 });
  const b = createModel(modelPreset("tiny", data.tokenizer.size), { seed: 2 });
  const teacher = createTeacher(data.tokenizer, { dropProbability: 0 });
  const agents: AgentSpec[] = [
    { name: "Teacher", contextPolicy: "memory", policy: teacher, maxPositions: 256 },
    { name: "SFT", contextPolicy: "full", model: a },
    { name: "SFT", contextPolicy: "memory", model: a },
    { name: "GRPO", contextPolicy: "memory", model: b },
  ];
  const sets = await copyDiagnostics(agents, data, { questions: 2, maxTurnTokens: 64, seed: 0 });
  assert.deepEqual(sets.map((d) => d.objectives), [1, 2, 4]);
  assert.ok(sets.every((d) => Object.keys(d.agents).join() === "SFT,GRPO"));
  const names = new Set(corpusNames(data.corpus));
  const scored = (k: number) => sets.find((d) => d.objectives === k)!.agents.GRPO!.reduce((n, c) => n + c.total, 0);
  for (const k of [1, 4]) {
    const { sequences, episodes } = await teacherDemonstrations(data, {
      count: 2,
      dropProbability: 0,
      seed: 0,
      policies: ["memory"],
      maxPositions: b.config.maxPositions,
      maxTurnTokens: 64,
      records: data.test.get(k)!.slice(0, 2),
    });
    assert.deepEqual(
      sets.find((d) => d.objectives === k)!.agents.GRPO,
      await copyAccuracy(b, data.tokenizer, names, sequences),
    );
    // one pass for both probes: the same steps as stepAccuracy's own pass over those turns
    assert.deepEqual(
      sets.find((d) => d.objectives === k)!.steps!.GRPO,
      await stepAccuracy(b, data.tokenizer, sequences),
    );
    // and the whole turns, on those turns' episodes
    assert.deepEqual(
      sets.find((d) => d.objectives === k)!.paths!.GRPO,
      await teacherPath(b, data.tokenizer, episodes, { maxTurnTokens: 64 }),
    );
  }
  assert.ok(scored(4) > scored(2) && scored(2) > scored(1), "more objectives, more teacher turns scored");
  const md = copyDiagnosticMarkdown(sets);
  const [cells, rest] = md.split("Each step of the memory's per-turn operation");
  const [steps, paths] = rest!.split("Whole turns, on the same episodes");
  const rows = (text: string) =>
    text.split("\n").filter((l) => /^\| (SFT|GRPO) /.test(l)).map((l) => l.split(" | ").slice(0, 2).join());
  const expected = ["| SFT,1", "| SFT,2", "| SFT,4", "| GRPO,1", "| GRPO,2", "| GRPO,4"];
  assert.deepEqual(rows(cells!), expected);
  // the state memory's steps, one row per agent and test set, the same scores as stepAccuracy on those turns
  assert.deepEqual(rows(steps!), expected);
  assert.deepEqual(rows(paths!), expected);
  assert.deepEqual(sets[0]!.steps!.GRPO!.map((c) => c.step).slice(0, 1), ["open from question"]);
  a.dispose();
  b.dispose();
});

Deno.test("copyDiagnosticMarkdown(): the exact text (a missing cell is –; the step table only with steps; no columns without cells)", () => {
  const md = copyDiagnosticMarkdown([
    {
      objectives: 1,
      agents: { SFT: [{ tag: "mem", kind: "name", correct: 1, total: 3 }] },
      steps: { SFT: [{ step: "think", correct: 2, total: 2 }] },
    },
    {
      objectives: 2,
      agents: {
        SFT: [{ tag: "mem", kind: "name", correct: 2, total: 3 }, {
          tag: "search",
          kind: "word",
          correct: 0,
          total: 1,
        }],
        MemPO: [{ tag: "search", kind: "word", correct: 1, total: 1 }],
      },
    },
  ]);
  const [head, steps] = md.split("\n\nEach step of the memory's per-turn operation");
  assert.ok(head!.startsWith("## Where the agents go wrong\n\nTeacher-forced greedy accuracy"));
  assert.ok(head!.endsWith([
    "by heart.",
    "",
    "| agent | objectives | mem/name | search/word |",
    "| --- | --- | --- | --- |",
    "| SFT | 1 | 33% (3) | – |",
    "| SFT | 2 | 67% (3) | 0% (1) |",
    "| MemPO | 2 | – | 100% (1) |",
  ].join("\n")));
  assert.ok(
    steps!.endsWith("parentheses).\n\n| agent | objectives | think |\n| --- | --- | --- |\n| SFT | 1 | 100% (2) |"),
  );
  // nothing probed: the header alone (it used to end in an empty column, "| agent | objectives |  |")
  assert.ok(copyDiagnosticMarkdown([]).endsWith("by heart.\n\n| agent | objectives |\n| --- | --- |"));
});
