// The pipeline's episode logs: written as the RL steps and the evaluation run, read through a kill (a torn last line,
// steps past the checkpoint) by the viewer, and continued by a resume to the uninterrupted run's log.
import assert from "node:assert/strict";
import { resolveConfig } from "../../lib/config/experiment.ts";
import { runPipeline } from "../../lib/pipeline/pipeline.ts";
import { branchRun } from "../../lib/pipeline/branch.ts";
import { keepCoveredEpisodes, rlEpisodeLog } from "../../lib/pipeline/run_episodes.ts";
import { appendEpisodes, readEpisodeLog } from "../../lib/episodes/episode_log.ts";
import type { EpisodeRecord } from "../../lib/episodes/episode_record.ts";
import { buildData, loadData } from "../../lib/data/build.ts";
import { createTeacher } from "../../lib/env/teacher.ts";
import { runEpisodes } from "../../lib/env/rollout.ts";
import { tasksFromRecords } from "../../lib/train/demos.ts";
import { viewApp } from "../../lib/view/server.ts";
import { runSummary } from "../../lib/view/run_index.ts";

const config = resolveConfig("quick", {
  dataDir: await Deno.makeTempDir(),
  sft: { steps: 40, demos: 64 }, // enough for episodes of several turns, whose memories MemPO credits
  rl: { algorithms: ["mempo"], steps: 3, checkpointEvery: 1 },
  eval: { questions: 1 },
});
const root = await Deno.makeTempDir();
const lines = async (path: string) => (await Deno.readTextFile(path)).split("\n").filter(Boolean);

Deno.test("pipeline episode logs: a kill mid-RL leaves whole steps and a torn line; the viewer reads them; a resume completes the uninterrupted run's log", async () => {
  const full = `${root}/full`;
  assert.equal((await runPipeline({ config, outDir: full })).completed, true);
  const rl = (await readEpisodeLog(`${full}/episodes/mempo.jsonl`)).records;
  // every episode of every step: 3 steps × 4 questions × 4 rollouts, in batch order
  assert.deepEqual(
    rl.map((r) => `${r.step}/${r.index}`),
    [0, 1, 2].flatMap((s) => [...Array(16).keys()].map((i) => `${s}/${i}`)),
  );
  assert.ok(rl.every((r) => r.turns.length > 0 && r.outcomeAdvantage !== undefined && r.leave !== undefined));
  // MemPO credits the memories of turns 2 onwards: A^M, R^M = P_mem − P_full there, none on turn 1
  const credited = rl.flatMap((r) => r.turns.slice(1)).filter((t) => t.memReward !== null);
  assert.ok(credited.length > 0);
  for (const t of credited) assert.ok(Math.abs(t.memReward! - (t.pMem! - t.pFull!)) < 1e-5);
  assert.ok(rl.every((r) => r.turns[0]!.memReward === null));
  // each sampled token's advantage: A^T, plus A^M on the <mem> span
  for (const r of rl) {
    for (const t of r.turns) {
      t.tokens.forEach((_, i) => {
        const inMem = t.memSpan !== undefined && i >= t.memSpan[0] && i < t.memSpan[1];
        const want = r.outcomeAdvantage! + (inMem && t.memAdvantage ? t.memAdvantage : 0);
        assert.ok(
          Math.abs(t.advantages![i]! - want) < 1e-4,
          `step ${r.step} episode ${r.index}: ${t.advantages![i]} ≠ ${want}`,
        );
      });
    }
  }
  // the evaluation: 5 agents × 3 test sets × 1 question
  const evaluated = (await readEpisodeLog(`${full}/episodes/eval.jsonl`)).records;
  assert.equal(evaluated.length, 15);
  assert.ok(evaluated.filter((r) => r.agent === "Teacher").every((r) => r.reward === 1 && r.leave === null));

  // a branch of its SFT (no second SFT) stopped after 2 RL steps (checkpoint at 2), then killed as it appended step
  // 3's episodes: its first 9 records whole, the 10th torn
  const part = `${root}/part`;
  await branchRun(full, part, config);
  assert.equal((await runPipeline({ config, outDir: part, resume: true, stopAfterRlSteps: 2 })).completed, false);
  const partLog = `${part}/episodes/mempo.jsonl`;
  assert.deepEqual(await lines(partLog), (await lines(`${full}/episodes/mempo.jsonl`)).slice(0, 32));
  const step3 = (await lines(`${full}/episodes/mempo.jsonl`)).slice(32, 42);
  await Deno.writeTextFile(partLog, step3.slice(0, 9).join("\n") + "\n" + step3[9]!.slice(0, 300), { append: true });

  // the viewer shows it as far as it is whole: the run in RL, step 3 of 3 with 9 episodes
  const app = viewApp(root);
  const summary = await runSummary({ name: "part", rel: "part", dir: part });
  assert.deepEqual([summary.stage, summary.progress, summary.done], ["mempo", "step 2/3", false]);
  const api = await app.request("/api/runs/part/episodes/mempo?size=2");
  assert.equal(api.status, 200);
  assert.deepEqual((await api.json() as EpisodeRecord[]).map((r) => r.index), [...Array(9).keys()]);
  const page = await app.request("/runs/part/episodes?stage=mempo");
  assert.equal(page.status, 200);
  assert.match(await page.text(), /<option value="2" selected>step 3<\/option>/);

  // the resume drops the steps past the checkpoint and the torn line, and ends with the uninterrupted run's log
  assert.equal((await runPipeline({ config, outDir: part, resume: true })).completed, true);
  assert.equal(await Deno.readTextFile(partLog), await Deno.readTextFile(`${full}/episodes/mempo.jsonl`));
  assert.deepEqual(
    (await lines(`${part}/episodes/eval.jsonl`)).toSorted(),
    (await lines(`${full}/episodes/eval.jsonl`)).toSorted(),
  );
});

Deno.test("rlEpisodeLog(): keeps the first N episodes of each step (whole groups first); 0 keeps none", async () => {
  const dir = await Deno.makeTempDir();
  await buildData(dir, 3, { trainCount: 4, testCount: 1, testObjectives: [1] });
  const data = await loadData(dir);
  const teacher = createTeacher(data.tokenizer, { dropProbability: 0 });
  const tasks = tasksFromRecords(data.train.slice(0, 2)).flatMap((t) => [t, t, t]); // 2 groups of 3
  const episodes = await runEpisodes(teacher, tasks, data, { contextPolicy: "memory" });
  for (const [keep, want] of [[4, ["0/0", "1/0", "2/0", "3/1"]], [0, []]] as const) {
    const run = await Deno.makeTempDir();
    await rlEpisodeLog(run, "grpo", data, resolveConfig("quick"), keep)({ step: 0, episodes, sequences: [] });
    const { records } = await readEpisodeLog(`${run}/episodes/grpo.jsonl`);
    assert.deepEqual(records.map((r) => `${r.index}/${r.group}`), want);
    // no sequence: no advantages (a turn no loss covers)
    assert.ok(records.every((r) => r.turns.every((t) => t.advantages === undefined)));
  }
});

Deno.test("keepCoveredEpisodes(): each algorithm's log keeps the steps its checkpoint covers", async () => {
  const dir = await Deno.makeTempDir();
  const rec = (stage: string, step: number) => ({ v: 1, stage, step, index: 0, turns: [] }) as unknown as EpisodeRecord;
  await appendEpisodes(`${dir}/episodes/mempo.jsonl`, [0, 1, 2, 3].map((s) => rec("mempo", s)));
  await appendEpisodes(`${dir}/episodes/grpo.jsonl`, [0, 1].map((s) => rec("grpo", s)));
  await appendEpisodes(`${dir}/episodes/eval.jsonl`, [rec("eval", 0)]);
  await keepCoveredEpisodes(dir, ["mempo", "grpo"], (a) => (a === "mempo" ? 2 : 0));
  assert.deepEqual((await readEpisodeLog(`${dir}/episodes/mempo.jsonl`)).records.map((r) => r.step), [0, 1]);
  assert.equal(await Deno.stat(`${dir}/episodes/grpo.jsonl`).then(() => true, () => false), false, "no step covered");
  assert.equal((await readEpisodeLog(`${dir}/episodes/eval.jsonl`)).records.length, 1, "not an RL log: kept");
});
