import assert from "node:assert/strict";
import {
  episodeStages,
  findRuns,
  readRunJson,
  runCurves,
  runEpisodeRecords,
  runSummary,
} from "../../lib/view/run_index.ts";
import type { MetricsRow } from "../../lib/train/metrics.ts";
import { writeViewFixture } from "./_run_fixture.ts";

const root = await Deno.makeTempDir();
await writeViewFixture(root);

Deno.test("findRuns(): the runs under a directory by name; a run's own folder is that run", async () => {
  await Deno.mkdir(`${root}/.hidden`);
  await Deno.writeTextFile(`${root}/.hidden/metrics.jsonl`, "");
  await Deno.mkdir(`${root}/notes`);
  assert.deepEqual((await findRuns(root)).map((r) => r.name), ["live", "small"]);
  assert.deepEqual(await findRuns(`${root}/small`), [{ name: "small", rel: "", dir: `${root}/small` }]);
});

Deno.test("runSummary(): done with eval.md; in evaluation while the eval log grows; else the last row's stage and step", async () => {
  const small = { name: "small", rel: "small", dir: `${root}/small` };
  assert.deepEqual((await runSummary(small)).stage, "done");
  const copy = await Deno.makeTempDir();
  for (const f of ["config.json", "metrics.jsonl"]) await Deno.copyFile(`${root}/small/${f}`, `${copy}/${f}`);
  await Deno.mkdir(`${copy}/episodes`);
  const lines = (await Deno.readTextFile(`${root}/small/episodes/eval.jsonl`)).split("\n").filter(Boolean);
  await Deno.writeTextFile(`${copy}/episodes/eval.jsonl`, lines.slice(0, 5).join("\n") + "\n");
  const evaluating = await runSummary({ name: "c", rel: "c", dir: copy });
  // 6 agents (4 + MemPO, GRPO) × 2 test sets × 2 questions
  assert.deepEqual([evaluating.stage, evaluating.progress, evaluating.done], ["eval", "5/24 episodes", false]);
  assert.deepEqual(evaluating.headline.map((h) => h.label), ["SFT loss", "MemPO reward", "GRPO reward"]);
  const live = await runSummary({ name: "live", rel: "live", dir: `${root}/live` });
  assert.deepEqual([live.stage, live.progress], ["mempo", "step 2/6"]);
  const empty = await Deno.makeTempDir();
  await Deno.writeTextFile(`${empty}/config.json`, "{}");
  assert.deepEqual((await runSummary({ name: "e", rel: "e", dir: empty })).stage, "starting");
});

Deno.test("runCurves(): one chart per metric with points, the stages aligned on their steps", () => {
  const rows: MetricsRow[] = [
    { stage: "sft", step: 0, "sft/loss": 3 },
    { stage: "mempo", step: 0, "rollout/reward_mean": 0.25, "kl/ref": 0 },
    { stage: "mempo", step: 1, "rollout/reward_mean": 0.5, "kl/ref": 0.01 },
    { stage: "grpo", step: 1, "rollout/reward_mean": 0.75 },
  ];
  const curves = runCurves(rows);
  assert.deepEqual(curves.map((c) => c.id), ["reward", "kl", "sft"]);
  assert.deepEqual(curves[0]!.series, { MemPO: [0.25, 0.5], GRPO: [null, 0.75] });
  assert.deepEqual(curves[1]!.series, { MemPO: [0, 0.01] });
  assert.deepEqual(curves[2], { id: "sft", title: "SFT cross-entropy", x: [1], series: { SFT: [3] } });
});

Deno.test("episodeStages(), runEpisodeRecords(), readRunJson(): the logs, their whole records, the JSON files", async () => {
  const live = { name: "live", rel: "live", dir: `${root}/live` };
  assert.deepEqual(await episodeStages(live), ["mempo"]);
  assert.deepEqual(await episodeStages({ ...live, dir: `${root}/none` }), []);
  assert.equal((await runEpisodeRecords(live, "mempo")).length, 16, "the torn 17th left out");
  assert.equal((await runEpisodeRecords(live, "grpo")).length, 0);
  assert.equal((await readRunJson(`${root}/small`, "eval.json"))?.rows instanceof Array, true);
  await Deno.writeTextFile(`${root}/live/compare.json`, "[1, 2]");
  assert.equal(await readRunJson(`${root}/live`, "compare.json"), undefined, "not an object");
});
