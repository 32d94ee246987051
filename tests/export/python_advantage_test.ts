// The exported Python memory reward, GRPO normaliser, memory advantage and MemPO estimator equal the package's
// TypeScript: the lessons' golden cases (the seed's worked example), their edge cases (singleton group,
// all-equal rewards, empty spans, threshold, coverage) and seeded random batches; the estimator against the
// trainer's own composition (grpoAdvantages + memoryAdvantages or infomemAdvantages + outcomeTurnSequences) in
// verl's two layouts.
import assert from "node:assert/strict";
import { memoryReward, type MemoryRewardOptions } from "../../lib/advantage/memory_reward.ts";
import {
  combineAdvantages,
  infomemAdvantages,
  type MemoryAdvantageOptions,
  memoryAdvantages,
  spanLengthScales,
} from "../../lib/advantage/memory_advantage.ts";
import { type GrpoAdvantageOptions, grpoAdvantages } from "../../lib/advantage/grpo.ts";
import { outcomeTurnSequences } from "../../lib/train/rl_batch.ts";
import type { Episode } from "../../lib/env/rollout.ts";
import { createRng, type Rng } from "../../lib/random.ts";
import { assertAllClose } from "../../lib/testing/all_close.ts";
import { runPython, valueOf } from "./_python.ts";
import { hasTorch } from "../_helpers.ts";

type Call = { fn: string; args: Record<string, unknown> };
const L = Math.log;
const TIGHT = { rtol: 1e-12, atol: 1e-12 };
const snakeGrpo = (o: GrpoAdvantageOptions) => ({
  ...(o.epsilon === undefined ? {} : { epsilon: o.epsilon }),
  ...(o.normByStd === undefined ? {} : { norm_by_std: o.normByStd }),
  ...(o.std === undefined ? {} : { std: o.std }),
});

interface Case {
  what: string;
  call: Call;
  /** The TS value; undefined = TS throws. */
  expected: unknown;
}

function tsOr(f: () => unknown): unknown {
  try {
    return f();
  } catch {
    return undefined;
  }
}

function rewardCases(rng: Rng): Case[] {
  const cases: Case[] = [];
  const add = (what: string, mem: number[][], full: number[][], mask: number[][], o: MemoryRewardOptions = {}) =>
    cases.push({
      what: `memory_reward ${what}`,
      call: {
        fn: "memory_reward",
        args: { mem, full, mask, threshold: o.threshold ?? null, coverage: o.coverage ?? false },
      },
      expected: tsOr(() => {
        const r = memoryReward({ memAnswerLogProbs: mem, fullAnswerLogProbs: full, answerMask: mask }, o);
        return [r.pMem, r.pFull, r.reward];
      }),
    });
  add(
    "seed −0.23 / +0.05",
    [[-5, L(0.12), L(0.12), -3], [-5, L(0.73), L(0.73), -3]],
    [[-6, L(0.35), L(0.35), -2], [-1, L(0.68), L(0.68), -4]],
    [[0, 1, 1, 0], [0, 1, 1, 0]],
  );
  add("geometric mean", [[L(0.5), L(0.2)]], [[L(0.9), L(0.9)]], [[1, 1]]);
  const th = { mem: [[L(0.9), L(0.3)], [L(0.2), L(0.4)]], full: [[L(0.6), L(0.8)], [L(0.6), L(0.5)]] };
  add("threshold 0.5, an empty kept set", th.mem, th.full, [[1, 1], [1, 1]], { threshold: 0.5 });
  add("threshold exactly at log 0.5", [[L(0.5), L(0.7)]], [[L(0.5), L(0.5)]], [[1, 1]], { threshold: 0.5 });
  const t0 = { mem: [[L(0.9), L(0.01)], [L(0.2), L(0.4)]], full: [[L(0.6), L(0.8)], [-80, L(0.5)]] };
  add("threshold 0 keeps every token", t0.mem, t0.full, [[1, 1], [1, 0]], { threshold: 0 });
  add("no threshold", t0.mem, t0.full, [[1, 1], [1, 0]]);
  const cov = {
    mem: [[L(0.95), L(0.1), L(0.2)], [L(0.7), L(0.6), -50]],
    full: [[L(0.9), L(0.8), L(0.7)], [L(0.4), L(0.9), -50]],
    mask: [[1, 1, 1], [1, 1, 0]],
  };
  add("coverage with a threshold", cov.mem, cov.full, cov.mask, { threshold: 0.5, coverage: true });
  add("threshold without coverage", cov.mem, cov.full, cov.mask, { threshold: 0.5 });
  add("coverage without a threshold", cov.mem, cov.full, cov.mask, { coverage: true });
  add("an all-zero mask", [[-1]], [[-1]], [[0]]);
  add("threshold out of range", [[0]], [[0]], [[1]], { threshold: 1.5 });
  add("a shape mismatch", [[0, 0]], [[0]], [[1]]);
  for (let k = 0; k < 12; k++) {
    const N = 1 + rng.int(6);
    const A = 1 + rng.int(7);
    const lp = () => Array.from({ length: N }, () => Array.from({ length: A }, () => -3 * rng.next() ** 2));
    const mask = Array.from({ length: N }, () => Array.from({ length: A }, () => (rng.next() < 0.7 ? 1 : 0)));
    const o: MemoryRewardOptions = k % 3 === 0 ? {} : { threshold: [0.2, 0.5, 0.8][k % 3]!, coverage: k % 2 === 0 };
    add(`random ${k}`, lp(), lp(), mask, o);
  }
  return cases;
}

function grpoCases(rng: Rng): Case[] {
  const cases: Case[] = [];
  const add = (what: string, scores: number[], groupIds: (string | number)[], o: GrpoAdvantageOptions = {}) =>
    cases.push({
      what: `group_advantages ${what}`,
      call: { fn: "group_advantages", args: { scores, group_ids: groupIds, options: snakeGrpo(o) } },
      expected: tsOr(() => grpoAdvantages(scores, groupIds, o)),
    });
  add("doc example", [1, 0, 0.7], ["a", "a", "b"], { epsilon: 0 });
  add("all-equal group", [0.1, 0.1, 0.1], [1, 1, 1]);
  add("singleton (verl)", [0.7], ["x"]);
  add("singleton, Dr.GRPO", [0.7], ["x"], { normByStd: false });
  add("singleton (MiniMind)", [0.7], ["x"], { std: "population", epsilon: 1e-4 });
  add("interleaved groups", [1, 0, 1, 0.5, 0.2, 0.9], ["a", "b", "a", "b", "a", "b"]);
  add("1 and '1' differ", [1, 0, 0.5, 0.25], [1, "1", 1, "1"]);
  add("mismatched lengths", [1, 2], [1]);
  add("bad std", [1], [1], { std: "sample" as "bessel" });
  for (let k = 0; k < 10; k++) {
    const n = 1 + rng.int(24);
    const scores = Array.from({ length: n }, () => (k % 2 === 0 ? rng.int(2) : rng.next() * 2 - 1));
    const ids = scores.map(() => rng.int(1 + rng.int(5)));
    const options: GrpoAdvantageOptions[] = [{}, { std: "population", epsilon: 1e-4 }, { normByStd: false }, {
      epsilon: 0,
    }];
    const o = options[k % 4]!;
    add(`random ${k}`, scores, ids, o);
  }
  return cases;
}

function memoryAdvantageCases(rng: Rng): Case[] {
  const cases: Case[] = [];
  const u = Math.sqrt(0.0162);
  const pool = [-0.23, 0.05, -0.01 + 0.08 + u, -0.01 + 0.08 - u];
  const add = (
    what: string,
    rewards: readonly number[] | (number | null)[][],
    groupIds: (string | number)[],
    o: MemoryAdvantageOptions = {},
  ) =>
    cases.push({
      what: `memory_advantages ${what}`,
      call: {
        fn: "memory_advantages",
        args: { rewards, group_ids: groupIds, options: { ...snakeGrpo(o), ...(o.pool ? { pool: o.pool } : {}) } },
      },
      expected: tsOr(() => memoryAdvantages({ rewards, groupIds } as never, o)),
    });
  add("seed pool → −1.22 / +0.33", [[null, pool[0]!, pool[1]!], [null, pool[2]!, pool[3]!]], [7, 7]);
  add("per question, population", [[null, 0.1, 0.4], [null, -0.2], [null, 0.3, 0.3, 0.0]], ["a", "b", "a"], {
    epsilon: 1e-4,
    std: "population",
  });
  add("flat", [0.1, 0.3], [1, 1], { epsilon: 0 });
  const turnPool = [[null, 0.1, 0.4, -0.3], [null, -0.2, 0.5], [null, 0.3, 0.3, 0.0], [null, 0.6]];
  add("pool turn", turnPool, ["a", 1, "a", "1"], { pool: "turn" });
  add("pool question", turnPool, ["a", 1, "a", "1"]);
  add("all-equal pool", [[null, 0.2, 0.2], [null, 0.2]], ["q", "q"]);
  add("a question with one memory", [[null, 0.4], [null]], ["q", "r"]);
  add("no memory at all", [[null], [null, null]], ["q", "q"]);
  add("pool turn on flat rewards", [0.1, 0.2], [1, 1], { pool: "turn" });
  for (let k = 0; k < 8; k++) {
    const N = 1 + rng.int(8);
    const rewards = Array.from(
      { length: N },
      () => Array.from({ length: 1 + rng.int(5) }, (_, t) => (t === 0 || rng.next() < 0.2 ? null : rng.next() - 0.5)),
    );
    add(`random ${k}`, rewards, rewards.map(() => rng.int(3)), { pool: k % 2 === 0 ? "question" : "turn" });
  }
  for (const lengths of [[2, 4, 6], [3, 5, 10, 0, 6], [], [0, 0], [2, -1], [2.5]]) {
    cases.push({
      what: `span_length_scales ${JSON.stringify(lengths)}`,
      call: { fn: "span_length_scales", args: { lengths } },
      expected: tsOr(() => spanLengthScales(lengths)),
    });
  }
  const combine = (what: string, outcome: number[], spans: [number, number, number][][], mask: number[][], c = 1) =>
    cases.push({
      what: `combine_advantages ${what}`,
      call: { fn: "combine_advantages", args: { outcome, spans, mask, mem_coef: c } },
      expected: tsOr(() =>
        combineAdvantages({
          outcomeAdvantages: outcome,
          memorySpans: spans.map((row) => row.map(([start, end, advantage]) => ({ start, end, advantage }))),
          mask,
        }, { memCoef: c })
      ),
    });
  combine("seed: −0.42 and +1.13 on the spans", [0.8], [[[0, 2, -1.22], [4, 6, 0.33]]], [[1, 1, 1, 1, 1, 1, 1]]);
  combine("mask and memCoef", [1, -0.5], [[[0, 2, 2]], []], [[1, 1, 0, 1], [1, 1, 1, 0]], 0.5);
  combine("an empty span", [0.3], [[[2, 2, 5]]], [[1, 1, 1]]);
  combine("a span past the end", [1], [[[2, 9, 1]]], [[1, 1]]);
  return cases;
}

Deno.test("mempo_verl memory reward, GRPO normaliser and memory advantage = the package's (golden, edge, random)", async () => {
  if (!(await hasTorch("Python memory reward/advantage equality"))) return;
  const rng = createRng(2203);
  const cases = [...rewardCases(rng), ...grpoCases(rng), ...memoryAdvantageCases(rng)];
  const py = await runPython(cases.map((c) => c.call));
  cases.forEach((c, i) => {
    const r = py[i]!;
    if (c.expected === undefined) {
      assert.ok("error" in r, `${c.what}: TypeScript throws, Python returned ${JSON.stringify(r)}`);
      return;
    }
    const got = valueOf(r, c.what);
    if (c.call.fn === "memory_advantages") {
      // null where TS has null, numbers close elsewhere
      const e = JSON.stringify(c.expected, (_, v) => (typeof v === "number" ? 0 : v));
      assert.equal(JSON.stringify(got, (_, v) => (typeof v === "number" ? 0 : v)), e, `${c.what}: null pattern`);
      const flat = (x: unknown) => (x as unknown[]).flat(2).filter((v) => v !== null) as number[];
      assertAllClose(flat(got), flat(c.expected), { ...TIGHT, msg: c.what });
    } else {
      const g = c.call.fn === "memory_reward"
        ? ["p_mem", "p_full", "reward"].map((k) => (got as Record<string, number[]>)[k]!)
        : got;
      assertAllClose(g as number[], c.expected as number[], { ...TIGHT, msg: c.what });
    }
  });
  const byFn = Object.entries(Object.groupBy(cases, (c) => c.call.fn)).map(([k, v]) => `${k} ${v!.length}`);
  console.log(`advantage equality: ${cases.length} cases (${byFn.join(", ")}), ≤ 1e-12`);
});

/** A seeded batch of finished episodes (turn tokens, `<mem>` spans, outcome rewards) and their memory rewards. */
function randomBatch(rng: Rng, questions: number, group: number) {
  const episodes: Episode[] = [];
  const memory: (number | null)[][] = [];
  for (let q = 0; q < questions; q++) {
    const allEqual = rng.next() < 0.25;
    const size = q === 0 ? 1 : group; // question 0: a singleton group
    for (let g = 0; g < size; g++) {
      const turns = Array.from({ length: 1 + rng.int(4) }, (_, t) => {
        const n = t === 0 ? 1 + rng.int(6) : rng.int(7); // 0: an empty later turn (no sequence)
        const close = n === 0 || rng.next() < 0.15 ? -1 : rng.int(n);
        return {
          context: Array.from({ length: 2 + rng.int(4) + 3 * t }, () => 1),
          sampled: Array.from({ length: n }, () => 5),
          logProbs: Array.from({ length: n }, () => -1),
          ...(close >= 0 ? { memSpan: [0, close + 1] as [number, number] } : {}),
          tool: [],
        };
      });
      episodes.push({
        id: episodes.length,
        task: { question: `q${q}`, targets: "a", groupId: q },
        turns,
        reward: allEqual ? 1 : rng.int(2),
      } as unknown as Episode);
      memory.push(
        turns.map((t, k) => (k === 0 || t.memSpan === undefined || rng.next() < 0.1 ? null : rng.next() - 0.5)),
      );
    }
  }
  return { episodes, memory };
}

interface EstimatorOptions {
  variant?: "mempo" | "infomem";
  memCoef: number;
  closeTag: boolean;
  spanWeight: "token" | "span";
  pool: "question" | "turn";
  epsilon: number;
  std: "bessel" | "population";
}

/** The trainer's composition (rlStep for MemPO): A^T per episode, A^M pooled, sequences per turn. */
function tsAdvantages(episodes: Episode[], memory: (number | null)[][], o: EstimatorOptions) {
  const outcome = grpoAdvantages(episodes.map((e) => e.reward), episodes.map((e) => e.task.groupId), o);
  const groupIds = episodes.map((e) => e.task.groupId);
  const am = o.variant === "infomem"
    ? infomemAdvantages({ rewards: memory, groupIds, outcomes: episodes.map((e) => e.reward) }, o)
    : memoryAdvantages({ rewards: memory, groupIds }, o);
  return outcomeTurnSequences(episodes, outcome, am, o);
}

/** verl's tensors for the batch: one row per turn (traj_index) or one row per trajectory (turns concatenated). */
function verlBatch(episodes: Episode[], memory: (number | null)[][], layout: "turn" | "trajectory") {
  const rows: { tokens: number; mask: number[]; span: number[]; reward: number[]; mem: (number | null)[] }[] = [];
  const index: number[] = [];
  const traj: number[] = [];
  const K = Math.max(...memory.map((m) => m.length));
  episodes.forEach((e, i) => {
    const pieces = e.turns.map((t, k) => ({
      mask: t.sampled.map(() => 1),
      span: t.sampled.map((_, j) => (t.memSpan !== undefined && j >= t.memSpan[0] && j < t.memSpan[1] ? k : -1)),
      k,
    })).filter((p) => p.mask.length > 0);
    const memRow = (only?: number) =>
      Array.from({ length: K }, (_, k) => (only === undefined || only === k ? memory[i]![k] ?? null : null));
    if (layout === "turn") {
      pieces.forEach((p, j) => {
        const reward = p.mask.map(() => 0);
        if (j === pieces.length - 1) reward[reward.length - 1] = e.reward;
        rows.push({ tokens: p.mask.length, mask: p.mask, span: p.span, reward, mem: memRow(p.k) });
        index.push(e.task.groupId as number);
        traj.push(i);
      });
    } else {
      // tool tokens between turns: masked out, outside every span
      const mask = pieces.flatMap((p) => [...p.mask, 0, 0]);
      const span = pieces.flatMap((p) => [...p.span, -1, -1]);
      const reward = mask.map(() => 0);
      const last = mask.lastIndexOf(1);
      if (last >= 0) reward[last] = e.reward;
      rows.push({ tokens: mask.length, mask, span, reward, mem: memRow() });
      index.push(e.task.groupId as number);
      traj.push(i);
    }
  });
  const T = Math.max(1, ...rows.map((r) => r.tokens));
  const pad = <X>(xs: X[], v: X) => [...xs, ...new Array(T - xs.length).fill(v)];
  return {
    token_level_rewards: rows.map((r) => pad(r.reward, 0)),
    response_mask: rows.map((r) => pad(r.mask, 0)),
    memory_span_ids: rows.map((r) => pad(r.span, -1)),
    memory_rewards: rows.map((r) => r.mem),
    index,
    traj_index: layout === "turn" ? traj : null,
  };
}

Deno.test("mempo_verl compute_mempo_advantage = the trainer's MemPO advantages, per-turn and per-trajectory rows", async () => {
  if (!(await hasTorch("Python MemPO estimator equality"))) return;
  const rng = createRng(5375);
  const variants: EstimatorOptions[] = [];
  for (const pool of ["question", "turn"] as const) {
    for (const closeTag of [true, false]) {
      for (const spanWeight of ["token", "span"] as const) {
        variants.push({ memCoef: 1, closeTag, spanWeight, pool, epsilon: 1e-6, std: "bessel" });
      }
    }
  }
  variants.push(
    { memCoef: 0.5, closeTag: true, spanWeight: "token", pool: "question", epsilon: 1e-4, std: "population" },
    { memCoef: 0, closeTag: true, spanWeight: "token", pool: "question", epsilon: 0, std: "bessel" },
    {
      variant: "infomem",
      memCoef: 1,
      closeTag: true,
      spanWeight: "token",
      pool: "question",
      epsilon: 1e-6,
      std: "bessel",
    },
    {
      variant: "infomem",
      memCoef: 0.5,
      closeTag: false,
      spanWeight: "span",
      pool: "turn",
      epsilon: 1e-6,
      std: "bessel",
    },
  );
  const calls: Call[] = [];
  const expected: { what: string; rows: number[][]; float32: boolean }[] = [];
  variants.forEach((o, v) => {
    for (let rep = 0; rep < 3; rep++) {
      const { episodes, memory } = randomBatch(rng, 2 + rng.int(3), 2 + rng.int(4));
      const seqs = tsAdvantages(episodes, memory, o);
      const options = {
        ...(o.variant ? { variant: o.variant } : {}),
        mem_coef: o.memCoef,
        close_tag: o.closeTag,
        span_weight: o.spanWeight,
        pool: o.pool,
        epsilon: o.epsilon,
        std: o.std,
      };
      for (const layout of ["turn", "trajectory"] as const) {
        const batch = verlBatch(episodes, memory, layout);
        // expected rows: the sequences' advantages on their sampled tokens, in the batch's layout
        const perTurn = seqs.map((s) => s.extras.advantages!.filter((_, j) => s.lossMask[j] === 1));
        const rows = layout === "turn"
          ? perTurn
          : episodes.map((_, i) => seqs.flatMap((s, j) => (s.episode === i ? [...perTurn[j]!, 0, 0] : [])));
        const T = batch.response_mask[0]!.length;
        const padded = rows.map((r) => [...r, ...new Array(T - r.length).fill(0)]);
        for (const float32 of rep === 0 ? [false, true] : [false]) {
          calls.push({ fn: "compute_mempo_advantage", args: { ...batch, options, float32 } });
          expected.push({ what: `variant ${v} ${JSON.stringify(o)} rep ${rep} ${layout} rows`, rows: padded, float32 });
        }
      }
    }
  });
  // verl's own layout without memory: plain GRPO over rows (memory_rewards absent)
  const plain = {
    token_level_rewards: [[0, 1], [0, 0], [1, 0]],
    response_mask: [[1, 1], [1, 1], [1, 0]],
    index: [0, 0, 1],
  };
  calls.push({ fn: "compute_mempo_advantage", args: plain });
  const g = grpoAdvantages([1, 0, 1], [0, 0, 1]);
  expected.push({ what: "no memory: GRPO", rows: [[g[0]!, g[0]!], [g[1]!, g[1]!], [g[2]!, 0]], float32: false });
  const py = await runPython(calls);
  expected.forEach((e, i) => {
    const got = valueOf(py[i], e.what) as number[][];
    assertAllClose(got, e.rows, e.float32 ? { rtol: 1e-6, atol: 1e-6, msg: e.what } : { ...TIGHT, msg: e.what });
  });
  // the comparison is not vacuous: memory credit moved some tokens away from A^T
  const moved = expected.filter((e) => e.rows.some((r) => new Set(r.filter((x) => x !== 0)).size > 1)).length;
  assert.ok(moved >= 20, `only ${moved} batches with memory credit`);
  // malformed inputs name the field
  const bad = await runPython([
    { fn: "compute_mempo_advantage", args: { ...plain, index: [0, 0] } },
    { fn: "compute_mempo_advantage", args: { ...plain, options: { pool: "step" } } },
    { fn: "compute_mempo_advantage", args: { ...plain, traj_index: [0, 0, 0] } },
  ]);
  assert.match((bad[0] as { error: string }).error, /index must have one entry per row \(3\)/);
  assert.match((bad[1] as { error: string }).error, /pool must be "question" or "turn", current value is 'step'/);
  assert.match((bad[2] as { error: string }).error, /row 2 of trajectory 0 has question 1, an earlier row of it has 0/);
  console.log(
    `estimator equality: ${expected.length} batches (${variants.length} option sets × 2 layouts), ${moved} with memory credit`,
  );
});
