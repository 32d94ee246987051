/**
 * How undecided a policy is at the memory decision: the entropy of its
 * next-token distribution where a turn's `<mem>` takes in a fact that has a
 * plausible wrong twin in the same search results, against its entropy at every
 * other token it writes, teacher-forced along given episodes. A cold start
 * imitating an imperfect teacher should be uncertain there and sure elsewhere;
 * that uncertainty is what RL's samples explore.
 *
 * @module
 */
import { tf } from "../tf.ts";
import { type Episode, type EpisodeTurn, runEpisodes } from "../env/rollout.ts";
import type { Model } from "../model/params.ts";
import { chunksByTokens, sequenceLogProbsAndEntropy } from "../model/score.ts";
import type { Tokenizer } from "../text/tokenizer.ts";
import type { LoadedData } from "../data/build.ts";
import { createTeacher, type MemoryFormat } from "../env/teacher.ts";
import { tasksFromRecords } from "../train/demos.ts";
import { markdownTable } from "../viz/table.ts";
import { memoryDecisions } from "./kept_facts.ts";

/** Result of {@linkcode decisionEntropy}. */
export interface DecisionEntropy {
  /** Mean entropy (nats) at the decision tokens. */
  decision: number;
  /** Mean entropy (nats) at every other sampled token of the same turns. */
  rest: number;
  /** Decision tokens found. */
  decisions: number;
  /** Other tokens. */
  tokens: number;
}

/** A turn's memory words (the text between `<mem>` and `</mem>`). */
function memWords(turn: Pick<EpisodeTurn, "text"> | undefined): Set<string> {
  const mem = /<mem>(.*?)<\/mem>/s.exec(turn?.text ?? "")?.[1] ?? "";
  return new Set(mem.split(/\s+/).filter((w) => w !== ""));
}

/**
 * The places in a turn's sampled tokens where its memory takes in a new
 * fact that has a decoy: a `<mem>` token that is a memory decision's needed
 * value or decoy (`memoryDecisions`) and that the turn before's memory did
 * not hold.
 *
 * Source: this package (the memory decision of `keptFacts`).
 *
 * @param episode The episode (its task's `subQuestions` name the facts).
 * @param t The turn's index.
 * @param tokenizer The tokenizer (id → word).
 * @returns Indices into `episode.turns[t].sampled`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { decisionPlaces } from "./decision_entropy.ts";
 *
 * const tokenizer = { tokens: ["|", "vetox", "kalmar", "</mem>", "muzox"] } as never;
 * const hop = { entity: "muzox", relation: "lives" as const, answer: "vetox", decoy: "kalmar" };
 * const episode = {
 *   task: { question: "", targets: [["vetox"]], groupId: 0, subQuestions: [{ text: "", subject: "muzox", answer: "vetox", hops: [hop] }] },
 *   turns: [
 *     { text: "<mem> muzox | </mem>", sampled: [4, 0, 3], memSpan: [0, 3] },
 *     { text: "<mem> | kalmar </mem>", sampled: [0, 2, 3], memSpan: [0, 3] },
 *   ],
 * };
 * assert.deepEqual(decisionPlaces(episode as never, 1, tokenizer), [1]);
 * assert.deepEqual(decisionPlaces(episode as never, 0, tokenizer), []);
 * ```
 */
export function decisionPlaces(episode: Pick<Episode, "task" | "turns">, t: number, tokenizer: Tokenizer): number[] {
  const turn = episode.turns[t]!;
  if (turn.memSpan === undefined) return [];
  const facts = new Set(memoryDecisions(episode.task).flatMap((d) => [d.answer, d.decoy]));
  const before = memWords(episode.turns[t - 1]);
  const out: number[] = [];
  for (let j = turn.memSpan[0]; j < turn.memSpan[1]; j++) {
    const word = tokenizer.tokens[turn.sampled[j]!];
    if (word !== undefined && facts.has(word) && !before.has(word)) out.push(j);
  }
  return out;
}

/**
 * Mean next-token entropy at the memory decisions ({@linkcode decisionPlaces})
 * and at every other sampled token, teacher-forced along the episodes' turns
 * (each turn scored under the context it was written in), no gradient.
 *
 * ```text
 * H_t = −Σ_v π(v | s_<t) log π(v | s_<t)      decision = mean H over decision tokens, rest = over the others
 * ```
 *
 * Source: token entropy as verl logs it (`actor/entropy`), split by place.
 *
 * @param model The policy.
 * @param episodes Episodes to follow (a teacher's, with decoys in their tasks).
 * @param tokenizer The tokenizer.
 * @param options `maxTokens`: padded tokens per forward at most. @default 4096
 * @returns The two means (NaN where a kind has no token) and the counts.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { decisionEntropy } from "./decision_entropy.ts";
 * import { createModel } from "../model/params.ts";
 * import { modelPreset } from "../model/config.ts";
 *
 * const model = createModel(modelPreset("tiny", 8));
 * const tokenizer = { tokens: ["<pad>", "|", "vetox", "kalmar", "</mem>", "a", "b", "c"], padId: 0 } as never;
 * const hop = { entity: "muzox", relation: "lives" as const, answer: "vetox", decoy: "kalmar" };
 * const task = { question: "", targets: [["vetox"]], groupId: 0, subQuestions: [{ text: "", subject: "muzox", answer: "vetox", hops: [hop] }] };
 * const turns = [{ context: [5, 6], text: "<mem> | vetox </mem>", sampled: [1, 2, 4, 7], memSpan: [0, 3] }];
 * const h = await decisionEntropy(model, [{ task, turns }] as never, tokenizer);
 * assert.deepEqual([h.decisions, h.tokens], [1, 3]);
 * assert.ok(h.decision > 0 && h.decision <= Math.log(8) + 1e-6);
 * model.dispose();
 * ```
 */
export async function decisionEntropy(
  model: Model,
  episodes: readonly Pick<Episode, "task" | "turns">[],
  tokenizer: Tokenizer,
  options: { maxTokens?: number } = {},
): Promise<DecisionEntropy> {
  const items = episodes.flatMap((e) =>
    e.turns.flatMap((turn, t) =>
      turn.sampled.length === 0 ? [] : [{ turn, decisions: new Set(decisionPlaces(e, t, tokenizer)) }]
    )
  );
  const size = (x: typeof items[number]) => x.turn.context.length + x.turn.sampled.length;
  const sums = { decision: 0, rest: 0, decisions: 0, tokens: 0 };
  for (const chunk of chunksByTokens(items, size, 64, options.maxTokens ?? 4096)) {
    const L = Math.max(...chunk.map(size)) - 1;
    const rows = chunk.map((x) => [...x.turn.context, ...x.turn.sampled]);
    const pad = (r: number[]) => [...r, ...Array(Math.max(0, L - r.length)).fill(tokenizer.padId)];
    const tokens = tf.tensor2d(rows.map((r) => pad(r.slice(0, L))), [chunk.length, L], "int32");
    const targets = tf.tensor2d(rows.map((r) => pad(r.slice(1, L + 1))), [chunk.length, L], "int32");
    const { logProbs, entropy } = sequenceLogProbsAndEntropy(model, tokens, targets);
    const h = await entropy.data();
    tf.dispose([tokens, targets, logProbs, entropy]);
    chunk.forEach((x, i) => {
      const first = x.turn.context.length - 1; // position that predicts sampled token 0
      x.turn.sampled.forEach((_, j) => {
        const v = h[i * L + first + j]!;
        if (x.decisions.has(j)) (sums.decision += v), (sums.decisions += 1);
        else (sums.rest += v), (sums.tokens += 1);
      });
    });
  }
  return {
    decision: sums.decision / sums.decisions,
    rest: sums.rest / sums.tokens,
    decisions: sums.decisions,
    tokens: sums.tokens,
  };
}

/** One row of {@linkcode decisionEntropyRows}: a model agent on one test set. */
export interface DecisionEntropyRow extends DecisionEntropy {
  /** Agent name. */
  agent: string;
  /** Objectives per question of the set. */
  objectives: number;
}

/**
 * {@linkcode decisionEntropy} of each model agent on each test set, along the
 * cold-start teacher's own episodes (memory context, its drops included: the
 * distribution the SFT policy imitated). Nothing where the data has no decoys.
 *
 * Source: this package.
 *
 * @param agents The model agents (name and policy).
 * @param data The run's data (test sets, search, tokenizer).
 * @param options Questions per set, tokens per turn, the teacher's memory format, drop probability and seed.
 * @returns One row per agent and set.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildData, loadData } from "../data/build.ts";
 * import { createModel } from "../model/params.ts";
 * import { modelPreset } from "../model/config.ts";
 * import { decisionEntropyRows } from "./decision_entropy.ts";
 *
 * const dir = await Deno.makeTempDir();
 * const sizes = { countries: 2, cities: 4, people: 8, companies: 4, films: 4, distractors: 0, lives: 1 };
 * await buildData(dir, 0, { trainCount: 4, testCount: 4, testObjectives: [2], trainObjectives: 1, sizes });
 * const data = await loadData(dir);
 * const model = createModel(modelPreset("tiny", data.tokenizer.size));
 * const options = { questions: 4, maxTurnTokens: 48, memory: "state-relations" as const, dropProbability: 0.3, seed: 0 };
 * const [row] = await decisionEntropyRows([{ name: "SFT", model }], data, options);
 * assert.equal(row!.objectives, 2);
 * assert.ok(row!.decisions > 0 && row!.decision > 0);
 * model.dispose();
 * ```
 */
export async function decisionEntropyRows(
  agents: readonly { name: string; model: Model }[],
  data: Pick<LoadedData, "test" | "tokenizer" | "search" | "questionOnce">,
  options: { questions: number; maxTurnTokens: number; memory: MemoryFormat; dropProbability: number; seed: number },
): Promise<DecisionEntropyRow[]> {
  const hasDecoys = [...data.test.values()].some((rs) =>
    rs.some((r) => r.subQuestions?.some((q) => q.hops.at(-1)?.decoy !== undefined))
  );
  if (!hasDecoys) return [];
  const teacher = createTeacher(data.tokenizer, {
    memory: options.memory,
    dropProbability: options.dropProbability,
    seed: options.seed,
  });
  const rows: DecisionEntropyRow[] = [];
  for (const [objectives, records] of [...data.test].sort(([a], [b]) => a - b)) {
    const tasks = tasksFromRecords(records.slice(0, options.questions));
    const episodes = await runEpisodes(teacher, tasks, data, {
      contextPolicy: "memory",
      maxTurns: 4 * objectives + 4,
      maxTurnTokens: options.maxTurnTokens,
    });
    for (const { name, model } of agents) {
      rows.push({ agent: name, objectives, ...await decisionEntropy(model, episodes, data.tokenizer) });
    }
  }
  return rows;
}

/**
 * The section "Entropy at the memory decision" of eval.md.
 *
 * Source: this package.
 *
 * @param rows {@linkcode decisionEntropyRows}'s rows.
 * @returns Markdown.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { decisionEntropyMarkdown } from "./decision_entropy.ts";
 *
 * const md = decisionEntropyMarkdown([{ agent: "SFT", objectives: 2, decision: 0.61, rest: 0.02, decisions: 5, tokens: 90 }]);
 * assert.match(md, /\| SFT \| 0\.61 \/ 0\.02 \|/);
 * ```
 */
export function decisionEntropyMarkdown(rows: readonly DecisionEntropyRow[]): string {
  const ks = [...new Set(rows.map((r) => r.objectives))].sort((a, b) => a - b);
  const agents = [...new Set(rows.map((r) => r.agent))];
  const cell = (a: string, k: number) => {
    const r = rows.find((x) => x.agent === a && x.objectives === k);
    return r ? `${r.decision.toFixed(2)} / ${r.rest.toFixed(2)}` : "–";
  };
  return [
    "## Entropy at the memory decision",
    "",
    "Mean next-token entropy (nats) of each policy where the cold-start teacher's `<mem>` takes in a fact that has a",
    "plausible wrong twin in the same search results / at every other token it writes, teacher-forced along the teacher's",
    "own episodes (memory context, its drops included).",
    "",
    markdownTable(["agent", ...ks.map((k) => `${k} obj`)], agents.map((a) => [a, ...ks.map((k) => cell(a, k))]))
      .markdown,
  ].join("\n");
}
