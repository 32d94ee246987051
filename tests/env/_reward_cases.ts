// The reward's and the format's cases, with their expected values: tests/env/reward_test.ts and format_test.ts
// assert them against the package, tests/export/python_reward_test.ts against the exported Python package
// (mempo_verl), so a case added here is checked on both sides. The JSDoc examples of lib/env/reward.ts and
// format.ts are among them.
import type { AnswerScore, Targets } from "../../lib/env/reward.ts";

/** A turn that searches, and one that answers, both well formed. */
export const OK_SEARCH = "<mem> none </mem> <think> 1 born x </think> <search> x born </search>";
export const OK_ANSWER = "<mem> 1 = y </mem> <think> answer </think> <answer> y </answer>";

/** Three objectives, the second with two aliases. */
export const T3 = [["kalmar"], ["vestria", "vest"], ["olvan"]];

/** `normalizeAnswer(input) = expected` (SQuAD: lower case, no punctuation, no articles, single spaces). */
export const NORMALIZE_CASES: readonly [string, string][] = [
  ["The Kalmar, (city)!", "kalmar city"],
  ["an  apple a day", "apple day"],
  ["", ""],
  ["  The  Hurt-Locker! ", "hurtlocker"],
];

/** `[prediction, aliases, emCheck, f1Score]`. */
export const ALIAS_CASES: readonly [string, string[], number, number][] = [
  ["Kalmar.", ["vestria", "kalmar"], 1, 1],
  ["kalmar city", ["kalmar"], 0, 2 / 3],
  ["the Kalmar", ["kalmar"], 1, 1],
  ["the kalmar", ["kalmar", "x"], 1, 1],
  ["", ["kalmar"], 0, 0],
  ["kalmar kalmar", ["kalmar"], 0, 2 / 3], // bag of tokens: 1 common of 2 predicted
];

const zeros = (n: number): AnswerScore => ({
  em: Array(n).fill(0),
  f1: Array(n).fill(0),
  countMatches: false,
  allCorrect: false,
});

/** `[answer, targets, scoreAnswer(answer, targets)]`; `outcomeReward` is `allCorrect` when the format is valid, else 0. */
export const SCORE_CASES: readonly [string | null, Targets, AnswerScore][] = [
  [" kalmar ; vest ; tesla ", T3, { em: [1, 1, 0], f1: [1, 1, 0], countMatches: true, allCorrect: false }],
  ["kalmar ; vest", T3, zeros(3)], // two parts for three objectives: 0 everywhere
  [null, T3, zeros(3)],
  ["kalmar;vestria;olvan", T3, { em: [1, 1, 1], f1: [1, 1, 1], countMatches: true, allCorrect: true }],
  ["Paris", "paris", { em: [1], f1: [1], countMatches: true, allCorrect: true }],
  ["paris", ["Paris", "City of Light"], { em: [1], f1: [1], countMatches: true, allCorrect: true }],
  ["kalmar ; olvan", [["kalmar"], ["vestria"]], { em: [1, 0], f1: [1, 0], countMatches: true, allCorrect: false }],
  ["kalmar", [["kalmar"], ["vestria"]], zeros(2)],
  // "a" is an article: it normalises to "" on both sides (EM 1), and an empty bag of tokens has F1 0
  ["a ; b", [["a"], ["b"]], { em: [1, 1], f1: [0, 1], countMatches: true, allCorrect: true }],
];

/** `[targets, normalizeTargets(targets)]`, or the error it throws. */
export const TARGET_CASES: readonly [unknown, string[][] | RegExp][] = [
  ["x", [["x"]]],
  ["Paris", [["Paris"]]],
  [["Paris", "paris city"], [["Paris", "paris city"]]],
  [[["a"], ["b", "c"]], [["a"], ["b", "c"]]],
  [[], /Invalid targets/],
  [[["a"], [1]], /objective 1 must be a list of strings/],
];

/** `[rule, turn, parseTurn's value or the reason it is refused]`. */
export const TURN_CASES: readonly [
  string,
  string,
  { mem: string; think: string; action: string; content: string } | RegExp,
][] = [
  ["well formed", OK_SEARCH, { mem: "none", think: "1 born x", action: "search", content: "x born" }],
  ["well formed", OK_ANSWER, { mem: "1 = y", think: "answer", action: "answer", content: "y" }],
  [
    "well formed",
    "<mem> none </mem> <think> 1 born zorbex </think> <search> zorbex born </search>",
    { mem: "none", think: "1 born zorbex", action: "search", content: "zorbex born" },
  ],
  [
    "rule 1: no tool tags or role markers written by the model",
    "<mem> a </mem> <think> b </think> <search> c </search> <information> d </information>",
    /tool tag/,
  ],
  [
    "rule 1: no tool tags or role markers written by the model",
    "<mem> a </mem> <think> b </think> <|user|> <search> c </search>",
    /chat-role/,
  ],
  ["rule 2: balanced, not nested", "<mem> a <think> b </think> </mem> <search> c </search>", /opened inside <mem>/],
  ["rule 2: balanced, not nested", "<mem> a </mem> <think> b </think> <search> c", /never closed/],
  ["rule 2: balanced, not nested", "<mem> a </mem> </think> <search> c </search>", /<\/think> without a matching/],
  ["rule 3: <mem> first", "<think> b </think> <mem> a </mem> <search> c </search>", /must start with <mem>/],
  ["rule 4: <think> after </mem>", "<mem> a </mem> <search> c </search>", /<think> must follow <\/mem>/],
  ["rule 4: <think> after </mem>", "<mem> x </mem> <search> q </search>", /<think> must follow <\/mem>/],
  ["rule 5: exactly one action after </think>", "<mem> a </mem> <think> b </think>", /found none/],
  [
    "rule 5: exactly one action after </think>",
    "<mem> a </mem> <think> b </think> <search> c </search> <answer> d </answer>",
    /found search, answer/,
  ],
  ["rule 5: exactly one action after </think>", "<mem> a </mem> <think> b </think> <mem> c </mem>", /found mem/],
  [
    "rule 6: no text outside tags or after the action",
    "<mem> a </mem> hello <think> b </think> <search> c </search>",
    /text outside the tags/,
  ],
  ["rule 6: no text outside tags or after the action", `${OK_ANSWER} and more`, /text after the action/],
];

/** `[turns, validateFormat(turns)'s reason]`, or true when the trajectory is valid. */
export const TRAJECTORY_CASES: readonly [string[], string | true][] = [
  [[OK_SEARCH, OK_ANSWER], true],
  [[OK_ANSWER], "turn 1: answered without any search"],
  [[OK_SEARCH, OK_ANSWER, OK_SEARCH], "turn 2: an answer must end the episode"],
  [[OK_SEARCH], "turn 1: the episode ended without an answer"],
  [[], "no turns"],
  [["<mem> none </mem> <think> t </think> <answer> a </answer>"], "turn 1: answered without any search"],
];

/** `[text, extractSolution(text)]`: the last complete answer, or null. */
export const SOLUTION_CASES: readonly [string, string | null][] = [
  [OK_ANSWER, "y"],
  ["no answer", null],
  ["<answer>a</answer><answer> b ; c </answer>", "b ; c"],
  ["<answer> a </answer> x <answer> b ; c </answer>", "b ; c"],
  ["<answer> open", null],
];
