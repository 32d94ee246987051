import assert from "node:assert/strict";
import {
  emCheck,
  f1Score,
  normalizeAnswer,
  normalizeTargets,
  outcomeReward,
  scoreAnswer,
} from "../../lib/env/reward.ts";

Deno.test("normalizeAnswer() follows SQuAD: lower, punctuation, articles, spaces", () => {
  assert.equal(normalizeAnswer("The Kalmar, (city)!"), "kalmar city");
  assert.equal(normalizeAnswer("an  apple a day"), "apple day");
  assert.equal(normalizeAnswer(""), "");
});

Deno.test("emCheck() and f1Score() over aliases", () => {
  assert.equal(emCheck("Kalmar.", ["vestria", "kalmar"]), 1);
  assert.equal(emCheck("kalmar city", ["kalmar"]), 0);
  assert.equal(f1Score("kalmar city", ["kalmar"]), 2 / 3);
  assert.equal(f1Score("the kalmar", ["kalmar", "x"]), 1);
  assert.equal(f1Score("", ["kalmar"]), 0);
  assert.equal(f1Score("kalmar kalmar", ["kalmar"]), 2 / 3); // bag of tokens: 1 common of 2 predicted
});

Deno.test("scoreAnswer(): per-objective split on ';', wrong count scores 0, outcome needs format", () => {
  const targets = [["kalmar"], ["vestria", "vest"], ["olvan"]];
  const s = scoreAnswer(" kalmar ; vest ; tesla ", targets);
  assert.deepEqual(s.em, [1, 1, 0]);
  assert.equal(s.allCorrect, false);
  assert.deepEqual(scoreAnswer("kalmar ; vest", targets).f1, [0, 0, 0]);
  assert.equal(scoreAnswer("kalmar ; vest", targets).countMatches, false);
  assert.deepEqual(scoreAnswer(null, targets).em, [0, 0, 0]);
  const right = scoreAnswer("kalmar;vestria;olvan", targets);
  assert.equal(outcomeReward(true, right), 1);
  assert.equal(outcomeReward(false, right), 0);
  assert.deepEqual(scoreAnswer("Paris", "paris").em, [1]);
  assert.deepEqual(scoreAnswer("paris", ["Paris", "City of Light"]).em, [1]);
});

Deno.test("normalizeTargets() accepts string, aliases, aliases per objective; rejects others", () => {
  assert.deepEqual(normalizeTargets("x"), [["x"]]);
  assert.throws(() => normalizeTargets([] as string[]), /Invalid targets/);
  assert.throws(() => normalizeTargets([["a"], [1]] as unknown as string[][]), /objective 1 must be a list of strings/);
});
