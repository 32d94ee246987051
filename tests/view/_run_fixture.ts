// A small directory of runs for the viewer's tests, written in about a second through the package's own writers:
// `small` (finished: metrics, eval.json, eval.md, figures, episode logs of the evaluation and of MemPO and GRPO) and
// `live` (in MemPO's third step: metrics and MemPO's episodes, each log ending in a line cut short). Its agents are the
// scripted teacher, exact or forgetting objectives, so the episodes have real tokens, right and wrong answers and
// places where they leave the teacher's path.
import { buildData, loadData, type LoadedData } from "../../lib/data/build.ts";
import { type ExperimentConfig, resolveConfig } from "../../lib/config/experiment.ts";
import { createTeacher } from "../../lib/env/teacher.ts";
import { type Episode, runEpisodes } from "../../lib/env/rollout.ts";
import { type AgentSpec, evaluateAgents } from "../../lib/eval/evaluate.ts";
import { grpoAdvantages } from "../../lib/advantage/grpo.ts";
import { memoryAdvantages } from "../../lib/advantage/memory_advantage.ts";
import { outcomeTurnSequences } from "../../lib/train/rl_batch.ts";
import { tasksFromRecords } from "../../lib/train/demos.ts";
import type { MetricsRow } from "../../lib/train/metrics.ts";
import { evalEpisodeLog, rlEpisodeLog } from "../../lib/pipeline/run_episodes.ts";
import { writeEvalFiles } from "../../lib/pipeline/evaluate_run.ts";

/** RL steps of the finished run (`small`); the live one is in its third. */
export const FIXTURE_STEPS = 6;

const policy = (data: LoadedData, drop: number, seed: number) =>
  createTeacher(data.tokenizer, { dropProbability: drop, seed });

// rewards of a step: the teacher forgetting each objective with probability 0.4 (a fresh draw per algorithm, step and
// episode, so MemPO's and GRPO's curves differ)
async function rlStepEpisodes(data: LoadedData, step: number, offset: number): Promise<Episode[]> {
  const tasks = tasksFromRecords(data.train.slice(step % 2, (step % 2) + 2)).flatMap((t) => [t, t, t, t]);
  const out: Episode[] = [];
  for (const [i, t] of tasks.entries()) {
    const [e] = await runEpisodes(policy(data, 0.4, 100 * step + i + offset), [t], data, { contextPolicy: "memory" });
    out.push({ ...e!, id: i });
  }
  return out;
}

async function writeRl(
  dir: string,
  data: LoadedData,
  config: ExperimentConfig,
  algorithm: "mempo" | "grpo",
  steps: number,
) {
  const log = rlEpisodeLog(dir, algorithm, data, config);
  const rows: MetricsRow[] = [];
  for (let step = 0; step < steps; step++) {
    const episodes = await rlStepEpisodes(data, step, algorithm === "grpo" ? 50 : 0);
    const outcome = grpoAdvantages(episodes.map((e) => e.reward), episodes.map((e) => e.task.groupId));
    // P_mem and P_full as a scorer could give them: the memory of a right episode holds the answer more surely
    const pMem = episodes.map((e, i) =>
      e.turns.map((_, k) => (k === 0 ? null : 0.3 + 0.5 * e.reward - 0.05 * ((i + k) % 3)))
    );
    const pFull = episodes.map((e) => e.turns.map((_, k) => (k === 0 ? null : 0.6)));
    const rewards = pMem.map((row, i) => row.map((p, k) => (p === null ? null : p - pFull[i]![k]!)));
    const memory = algorithm === "mempo"
      ? {
        rewards,
        advantages: memoryAdvantages({ rewards, groupIds: episodes.map((e) => e.task.groupId) }),
        pMem,
        pFull,
        stats: { rewardMean: 0, rewardStd: 0, pMem: 0, pFull: 0, turns: 0 },
      }
      : undefined;
    const sequences = outcomeTurnSequences(episodes, outcome, memory?.advantages);
    await log({ step, episodes, sequences, outcome, ...(memory ? { memory } : {}) });
    const reward = episodes.reduce((a, e) => a + e.reward, 0) / episodes.length;
    rows.push({
      stage: algorithm,
      step,
      "rollout/reward_mean": reward,
      "rollout/em": reward,
      "grpo/frac_zero_std": (step % 3) / 4,
      "policy/entropy": 0.9 - (algorithm === "grpo" ? 0.04 : 0.05) * step,
      "kl/ref": (algorithm === "grpo" ? 0.003 : 0.002) * step,
      "loss/policy": 0.01 * ((step % 2) - 0.5) + (algorithm === "grpo" ? 0.002 : 0),
    });
  }
  return rows;
}

const sftRows = (n: number): MetricsRow[] =>
  Array.from({ length: n }, (_, step) => ({ stage: "sft", step, "sft/loss": 4 / (1 + step) }));

const jsonl = (rows: readonly MetricsRow[]) => rows.map((r) => JSON.stringify(r) + "\n").join("");

/**
 * Writes `ROOT/small` (finished) and `ROOT/live` (in MemPO's third step, its metrics and MemPO's episode log each ending
 * in half a line) and returns the data they were made from.
 */
export async function writeViewFixture(root: string): Promise<LoadedData> {
  const dataDir = await Deno.makeTempDir();
  await buildData(dataDir, 4, { trainCount: 4, testCount: 2, testObjectives: [1, 2] });
  const data = await loadData(dataDir);
  const config = resolveConfig("quick", {
    dataDir,
    name: "small",
    rl: { steps: FIXTURE_STEPS },
    data: { testCount: 2, testObjectives: [1, 2] },
    eval: { questions: 2 },
  });

  const small = `${root}/small`;
  await Deno.mkdir(small, { recursive: true });
  await Deno.writeTextFile(`${small}/config.json`, JSON.stringify(config, null, 2));
  const metrics = [
    ...sftRows(10),
    ...await writeRl(small, data, config, "mempo", FIXTURE_STEPS),
    ...await writeRl(small, data, config, "grpo", FIXTURE_STEPS),
  ];
  await Deno.writeTextFile(`${small}/metrics.jsonl`, jsonl(metrics));
  const maxPositions = 1024;
  const agents: AgentSpec[] = [
    { name: "Teacher", policy: policy(data, 0, 0), maxPositions, contextPolicy: "full" },
    { name: "Teacher", policy: policy(data, 0, 0), maxPositions, contextPolicy: "memory" },
    { name: "SFT", policy: policy(data, 0.5, 1), maxPositions, contextPolicy: "full" },
    { name: "SFT", policy: policy(data, 0.5, 2), maxPositions, contextPolicy: "memory" },
    { name: "MemPO", policy: policy(data, 0.3, 3), maxPositions, contextPolicy: "memory" },
    { name: "GRPO", policy: policy(data, 0.5, 4), maxPositions, contextPolicy: "memory" },
  ];
  const rows = await evaluateAgents(agents, data, config.eval, undefined, await evalEpisodeLog(small, data, config));
  await writeEvalFiles(small, { rows, timings: { sft: 1, mempo: 1, grpo: 1, eval: 1 }, metrics });

  const live = `${root}/live`;
  await Deno.mkdir(live, { recursive: true });
  await Deno.writeTextFile(`${live}/config.json`, JSON.stringify({ ...config, name: "live" }, null, 2));
  const liveRows = [...sftRows(10), ...await writeRl(live, data, config, "mempo", 2)];
  // a kill, or a write in progress, cuts the last line of each log short
  await Deno.writeTextFile(`${live}/metrics.jsonl`, jsonl(liveRows) + '{"stage":"mempo","step":2,"rollout/rew');
  await Deno.writeTextFile(`${live}/episodes/mempo.jsonl`, '{"v":1,"stage":"mempo","step":2,"index":0,"gr', {
    append: true,
  });
  return data;
}
