import assert from "node:assert/strict";
import {
  emCheck,
  f1Score,
  normalizeAnswer,
  normalizeTargets,
  outcomeReward,
  scoreAnswer,
  type Targets,
} from "../../lib/env/reward.ts";
import { ALIAS_CASES, NORMALIZE_CASES, SCORE_CASES, TARGET_CASES } from "./_reward_cases.ts";

Deno.test("normalizeAnswer() follows SQuAD: lower, punctuation, articles, spaces", () => {
  for (const [input, expected] of NORMALIZE_CASES) assert.equal(normalizeAnswer(input), expected, input);
});

Deno.test("emCheck() and f1Score() over aliases", () => {
  for (const [prediction, aliases, em, f1] of ALIAS_CASES) {
    assert.equal(emCheck(prediction, aliases), em, `em ${prediction}`);
    assert.equal(f1Score(prediction, aliases), f1, `f1 ${prediction}`);
  }
});

Deno.test("scoreAnswer(): per-objective split on ';', wrong count scores 0, outcome needs format", () => {
  for (const [answer, targets, expected] of SCORE_CASES) {
    const s = scoreAnswer(answer, targets);
    assert.deepEqual(s, expected, String(answer));
    assert.equal(outcomeReward(true, s), expected.allCorrect ? 1 : 0, String(answer));
    assert.equal(outcomeReward(false, s), 0, String(answer));
  }
});

Deno.test("normalizeTargets() accepts string, aliases, aliases per objective; rejects others", () => {
  for (const [targets, expected] of TARGET_CASES) {
    if (expected instanceof RegExp) assert.throws(() => normalizeTargets(targets as Targets), expected);
    else assert.deepEqual(normalizeTargets(targets as Targets), expected);
  }
});
