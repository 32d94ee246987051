// The exported Python reward (mempo_verl) equals the package's TypeScript reward case by case: every case of
// tests/env/reward_test.ts and format_test.ts (and the JSDoc examples of reward.ts and format.ts), generated Unicode
// answers, and ≥ 500 generated and malformed rollouts scored by the agent loop in TypeScript and, in Python,
// from the response verl's reward manager decodes (the exported tokenizer read by Hugging Face's tokenizers).
import assert from "node:assert/strict";
import { Tokenizer as HfTokenizer } from "@huggingface/tokenizers";
import {
  emCheck,
  f1Score,
  normalizeAnswer,
  normalizeTargets,
  outcomeReward,
  scoreAnswer,
  type Targets,
} from "../../lib/env/reward.ts";
import { extractSolution, parseTurn, validateFormat } from "../../lib/env/format.ts";
import { buildData, loadData } from "../../lib/data/build.ts";
import { chatTemplate } from "../../lib/env/context.ts";
import { createTeacher } from "../../lib/env/teacher.ts";
import { type AgentPolicy, runEpisodes } from "../../lib/env/rollout.ts";
import { tasksFromRecords } from "../../lib/train/demos.ts";
import { encode, SPECIAL_TOKENS } from "../../lib/text/tokenizer.ts";
import { createRng, hashSeed } from "../../lib/random.ts";
import { hfTokenizerFiles } from "../../lib/export/hf_tokenizer.ts";
import { runPython, valueOf } from "./_python.ts";
import { hasTorch } from "../_helpers.ts";
import {
  ALIAS_CASES,
  NORMALIZE_CASES,
  SCORE_CASES,
  SOLUTION_CASES,
  TARGET_CASES,
  TRAJECTORY_CASES,
  TURN_CASES,
} from "../env/_reward_cases.ts";

type Call = { fn: string; args: Record<string, unknown> };

/** Every case of tests/env/_reward_cases.ts (the tables of reward_test.ts and format_test.ts, the JSDoc examples). */
function packageCases(): { ts: () => unknown; py: Call }[] {
  const c: { ts: () => unknown; py: Call }[] = [];
  for (const [s] of NORMALIZE_CASES) {
    c.push({ ts: () => normalizeAnswer(s), py: { fn: "normalize_answer", args: { s } } });
  }
  for (const [prediction, aliases] of ALIAS_CASES) {
    c.push({ ts: () => emCheck(prediction, aliases), py: { fn: "em_check", args: { prediction, aliases } } });
    c.push({ ts: () => f1Score(prediction, aliases), py: { fn: "f1_score", args: { prediction, aliases } } });
  }
  for (const [answer, targets] of SCORE_CASES) {
    c.push({
      ts: () => snakeScore(scoreAnswer(answer, targets)),
      py: { fn: "score_answer", args: { answer, targets } },
    });
    for (const formatValid of [true, false]) {
      c.push({
        ts: () => outcomeReward(formatValid, scoreAnswer(answer, targets)),
        py: { fn: "outcome_reward", args: { format_valid: formatValid, answer, targets } },
      });
    }
  }
  for (const [targets] of TARGET_CASES) {
    c.push({ ts: () => normalizeTargets(targets as Targets), py: { fn: "normalize_targets", args: { targets } } });
  }
  for (const [, text] of TURN_CASES) {
    c.push({ ts: () => snakeCheck(parseTurn(text)), py: { fn: "parse_turn", args: { text } } });
  }
  for (const [t] of TRAJECTORY_CASES) {
    c.push({ ts: () => snakeCheck(validateFormat(t)), py: { fn: "validate_format", args: { turns: t } } });
  }
  for (const [text] of SOLUTION_CASES) {
    c.push({ ts: () => extractSolution(text), py: { fn: "extract_solution", args: { text } } });
  }
  return c;
}

const snakeScore = (s: ReturnType<typeof scoreAnswer>) => ({
  em: s.em,
  f1: s.f1,
  count_matches: s.countMatches,
  all_correct: s.allCorrect,
});
const snakeCheck = (r: { ok: boolean; value?: unknown; reason?: string }) =>
  r.ok ? { ok: true, value: r.value, reason: "" } : { ok: false, value: null, reason: r.reason };

/** What a TS call returned, or that it threw. */
function tsOutcome(f: () => unknown): { value: unknown } | { error: true } {
  try {
    return { value: f() };
  } catch {
    return { error: true };
  }
}

/** Python's result for the comparison: a thrown error on both sides counts as equal. */
function compare(what: string, ts: { value: unknown } | { error: true }, py: { value: unknown } | { error: string }) {
  if ("error" in ts) {
    assert.ok("error" in py, `${what}: TypeScript threw, Python returned ${JSON.stringify(py)}`);
    return;
  }
  assert.ok(!("error" in py), `${what}: Python raised ${"error" in py ? py.error : ""}`);
  assert.deepEqual(py.value, normaliseParsed(ts.value), what);
}

// the Python ParsedTurn dataclass becomes {mem, think, action, content}: the same fields as the TS object
const normaliseParsed = (v: unknown): unknown => JSON.parse(JSON.stringify(v ?? null));

/** Seeded answer strings over ASCII, Unicode letters, punctuation, symbols and both languages' whitespace. */
function unicodeAnswers(n: number, seed: number): string[] {
  const pool = [
    ..."abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_",
    ..."éÉßẞİıΣσςΟΔÅøÆœçñÜ",
    ...".,;:!?'\"()[]{}-—–…«»¿¡‘’“”·•",
    ..."€$£©®™+=<>^`|~#%&*/\\@",
    ..."🙂🚀",
    " ",
    " ",
    "  ",
    "\t",
    "\n",
    "\u00a0",
    "\u2003",
    "\u3000",
    "\ufeff",
    "\u0085",
    "\u001c",
    "\u200b",
  ];
  const words = ["the", "The", "a", "an", "An", "theé", "thé", "kalmar", "vest", "ria", "olvan", ";"];
  const rng = createRng(seed);
  return Array.from({ length: n }, () => {
    const parts: string[] = [];
    const k = 1 + rng.int(8);
    for (let i = 0; i < k; i++) {
      parts.push(rng.next() < 0.5 ? words[rng.int(words.length)]! : pool[rng.int(pool.length)]!.repeat(1 + rng.int(3)));
    }
    return parts.join(rng.next() < 0.7 ? " " : "");
  });
}

Deno.test("mempo_verl reward = the package's on every case of its reward and format tests", async () => {
  if (!(await hasTorch("Python reward equality"))) return;
  const cases = packageCases();
  const py = await runPython(cases.map((c) => c.py));
  cases.forEach((c, i) => compare(`${c.py.fn}(${JSON.stringify(c.py.args)})`, tsOutcome(c.ts), py[i]!));
  console.log(`reward equality: ${cases.length} package test cases, all equal`);
});

Deno.test("mempo_verl normalisation, EM, F1 and multi-objective scores = the package's on Unicode answers", async () => {
  if (!(await hasTorch("Python reward equality (Unicode)"))) return;
  const answers = unicodeAnswers(300, 22);
  const aliases = unicodeAnswers(300, 23);
  const calls: Call[] = [];
  const expected: unknown[] = [];
  answers.forEach((a, i) => {
    const gold = [aliases[i]!, aliases[(i + 7) % aliases.length]!];
    calls.push({ fn: "normalize_answer", args: { s: a } });
    expected.push(normalizeAnswer(a));
    calls.push({ fn: "em_check", args: { prediction: a, aliases: gold } });
    expected.push(emCheck(a, gold));
    calls.push({ fn: "f1_score", args: { prediction: a, aliases: gold } });
    expected.push(f1Score(a, gold));
    const targets = [[aliases[i]!], gold];
    calls.push({ fn: "score_answer", args: { answer: a, targets } });
    expected.push(snakeScore(scoreAnswer(a, targets)));
  });
  // exact matches after normalisation must occur, or EM is only tested on 0
  assert.ok(expected.filter((e, i) => calls[i]!.fn === "em_check" && e === 1).length >= 5);
  const py = await runPython(calls);
  calls.forEach((c, i) => assert.deepEqual(valueOf(py[i], c.fn), expected[i], `${c.fn}(${JSON.stringify(c.args)})`));
  console.log(`reward equality: ${calls.length} Unicode cases, all equal`);
});

/** The teacher, with one seeded mutation in about a third of its turns (malformed, wrong or truncated output). */
function mutatingTeacher(base: AgentPolicy, tok: ReturnType<typeof Object>, seed: number, counts: Map<string, number>) {
  const t = tok as import("../../lib/text/tokenizer.ts").Tokenizer;
  const words = t.tokens.filter((w) => !(SPECIAL_TOKENS as readonly string[]).includes(w));
  const id = (w: string) => t.vocab.get(w)!;
  const specials = SPECIAL_TOKENS.map((s) => t.special(s));
  const policy: AgentPolicy = {
    async nextTurns(requests, options) {
      const outs = await base.nextTurns(requests, options);
      return outs.map((o, i) => {
        const { episode } = requests[i]!;
        const rng = createRng(hashSeed(seed, episode.id, episode.turns.length));
        let tokens = [...o.tokens];
        const kinds = [
          "none",
          "none",
          "none",
          "none",
          "none",
          "wrongWord",
          "dropToken",
          "insertSpecial",
          "truncate",
          "appendAfter",
          "answerNow",
          "extraObjective",
          "swapTokens",
          "garbage",
          "endToken",
          "empty",
          "punctuate",
          "pad",
        ];
        const kind = kinds[rng.int(kinds.length)]!;
        counts.set(kind, (counts.get(kind) ?? 0) + 1);
        const at = (n: number) => rng.int(Math.max(1, n));
        const answerAt = tokens.indexOf(id("<answer>"));
        switch (kind) {
          case "wrongWord":
            if (answerAt >= 0) tokens[answerAt + 1] = id(words[rng.int(words.length)]!);
            else tokens[at(tokens.length)] = id(words[rng.int(words.length)]!);
            break;
          case "dropToken":
            tokens.splice(at(tokens.length), 1);
            break;
          case "insertSpecial":
            tokens.splice(at(tokens.length + 1), 0, specials[rng.int(specials.length)]!);
            break;
          case "truncate":
            tokens = tokens.slice(0, Math.max(0, tokens.length - 1 - rng.int(3)));
            break;
          case "appendAfter":
            tokens.push(id(words[rng.int(words.length)]!));
            break;
          case "answerNow": {
            const gold = (episode.task.targets as string[][]).map((a) => a[rng.int(a.length)]!).join(" ; ");
            tokens = encode(t, `none </mem> <think> answer </think> <answer> ${gold} </answer>`).ids;
            break;
          }
          case "extraObjective":
            if (answerAt >= 0) tokens.splice(tokens.length - 1, 0, id(";"), id(words[rng.int(words.length)]!));
            break;
          case "swapTokens": {
            const a = at(tokens.length);
            const b = at(tokens.length);
            [tokens[a], tokens[b]] = [tokens[b]!, tokens[a]!];
            break;
          }
          case "garbage":
            tokens = Array.from({ length: 1 + rng.int(10) }, () => id(words[rng.int(words.length)]!));
            break;
          case "endToken":
            tokens[tokens.length - 1] = rng.next() < 0.5 ? t.special("<|end|>") : t.eosId;
            break;
          case "empty":
            tokens = [];
            break;
          case "punctuate":
            tokens.splice(answerAt >= 0 ? answerAt + 1 : at(tokens.length), 0, id(rng.next() < 0.5 ? "." : ","));
            break;
          case "pad":
            tokens.splice(at(tokens.length), 0, t.padId);
            break;
        }
        return { tokens, logProbs: tokens.map(() => 0) };
      });
    },
  };
  return policy;
}

Deno.test("mempo_verl compute_score = the agent loop's reward on ≥ 500 generated and malformed rollouts, as verl decodes them", async () => {
  if (!(await hasTorch("Python compute_score equality"))) return;
  const dir = await Deno.makeTempDir();
  await buildData(dir, 5, {
    trainCount: 70,
    testCount: 1,
    testObjectives: [1],
    trainObjectives: [1, 2, 3],
    sizes: { countries: 3, cities: 6, people: 12, companies: 6, films: 6, distractors: 1 },
  });
  const data = await loadData(dir);
  const tok = data.tokenizer;
  const files = hfTokenizerFiles(tok, 2048);
  const hf = new HfTokenizer(JSON.parse(files["tokenizer.json"]), JSON.parse(files["tokenizer_config.json"]));
  const template = chatTemplate(tok);
  const counts = new Map<string, number>();
  const tasks = tasksFromRecords(data.train);
  const episodes = [];
  for (let round = 0; round < 9; round++) {
    const policy = mutatingTeacher(createTeacher(tok, { dropProbability: 0.3, seed: round }), tok, 100 + round, counts);
    const eps = await runEpisodes(policy, tasks, data, { contextPolicy: "full", maxTurns: 8, seed: round });
    episodes.push(...eps);
  }
  // verl's response: turn tokens, then the tool message the chat template renders alone after a generated turn
  const responses = episodes.map((e) => {
    const ids = e.turns.flatMap((t) =>
      t.tool.length === 0 ? t.sampled : [...t.sampled, ...template.turnEnd, ...t.tool, ...template.turnPrefix]
    );
    return ids.length === 0 ? "" : hf.decode(ids, { skip_special_tokens: true });
  });
  const calls: Call[] = episodes.flatMap((e, i) => {
    const ground_truth = { target: normalizeTargets(e.task.targets) };
    return [
      { fn: "score_response", args: { solution_str: responses[i]!, ground_truth } },
      {
        fn: "compute_score",
        args: { data_source: "mempo-lab/synthetic-world", solution_str: responses[i]!, ground_truth },
      },
    ];
  });
  const py = await runPython(calls);
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  episodes.forEach((e, i) => {
    const what = `episode ${i} (${e.error ?? "ok"}): ${JSON.stringify(responses[i])}`;
    const r = valueOf(py[2 * i], what) as Record<string, unknown>;
    assert.deepEqual(
      { reward: r.reward, format_valid: r.format_valid, answered: r.answered, em: r.em, f1: r.f1 },
      { reward: e.reward, format_valid: e.formatValid, answered: e.answer !== null, em: e.score.em, f1: e.score.f1 },
      what,
    );
    assert.deepEqual(valueOf(py[2 * i + 1], what), {
      score: e.reward,
      em: mean(e.score.em),
      f1: mean(e.score.f1),
      format_valid: e.formatValid ? 1 : 0,
      answered: e.answer !== null ? 1 : 0,
      objectives: e.score.em.length,
    }, what);
  });
  const right = episodes.filter((e) => e.reward === 1).length;
  const partial = episodes.filter((e) => e.reward === 0 && e.score.f1.some((f) => f > 0)).length;
  console.log(
    `compute_score equality: ${episodes.length} rollouts (${right} rewarded, ${partial} unrewarded with F1 > 0, ` +
      `${episodes.length - right - partial} other), mutations ${JSON.stringify(Object.fromEntries(counts))}`,
  );
  assert.ok(episodes.length >= 500);
  // both verdicts, each many times (the share rewarded depends on the teacher format and the mutations)
  assert.ok(right >= 60 && episodes.length - right >= 200, `rewarded ${right} of ${episodes.length}`);
  assert.ok(partial >= 10, `only ${partial} unrewarded answers with partial F1`);
  await Deno.remove(dir, { recursive: true });
});
