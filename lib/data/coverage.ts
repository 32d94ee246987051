/**
 * Test-set coverage: the words of each test set's questions that no training
 * question contains. The policy has never seen such a token in the role the
 * task gives it (at most as a random word in the induction warm-up), so
 * whatever hangs on it, such as where one objective ends and the next starts
 * (`;`, after training on 1-objective questions only), it cannot have
 * learned, however good it is otherwise.
 *
 * @module
 */
import { splitWords } from "../text/tokenizer.ts";
import type { LoadedData } from "./build.ts";
import { corpusNames } from "../env/world.ts";

/**
 * For each test set, the words of its questions that appear in no training
 * question (main and auxiliary worlds), entity names aside (a name is learned
 * from the documents and answers it appears in, not from the questions), in
 * order of first appearance.
 *
 * ```text
 * unseen(k) = words(test questions with k objectives) \ words(training questions) \ entity names
 * ```
 *
 * Source: out-of-vocabulary rate of a test set against its training set (Jurafsky & Martin, *Speech and Language
 * Processing*, §3.3); here the vocabulary is shared and the question is which tokens training ever shows.
 *
 * @param data Loaded data (training questions, auxiliary worlds, test sets, corpus).
 * @returns Objective count → unseen words, for every test set.
 *
 * @example Training on 1-objective questions leaves the separator between objectives unseen
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildData, loadData } from "./build.ts";
 * import { unseenTestWords } from "./coverage.ts";
 *
 * const dir = await Deno.makeTempDir();
 * await buildData(dir, 1, { trainCount: 20, testCount: 2, trainObjectives: 1, testObjectives: [1, 3] });
 * const unseen = unseenTestWords(await loadData(dir));
 * assert.deepEqual(unseen.get(1), []);
 * assert.deepEqual(unseen.get(3), [";"]); // the separator
 * ```
 */
export function unseenTestWords(data: LoadedData): Map<number, string[]> {
  const seen = new Set(corpusNames(data.corpus));
  for (const r of [...data.train, ...data.aux.flatMap((a) => a.train)]) {
    for (const w of splitWords(r.question)) seen.add(w);
  }
  const out = new Map<number, string[]>();
  for (const [k, records] of [...data.test].sort((a, b) => a[0] - b[0])) {
    const unseen = new Set<string>();
    for (const r of records) for (const w of splitWords(r.question)) if (!seen.has(w)) unseen.add(w);
    out.set(k, [...unseen]);
  }
  return out;
}
