/**
 * The runs under a directory as `deno task view` shows them: each run's
 * preset, stage and progress, headline numbers, training curves, evaluation
 * and episode logs, read as far as they are complete (a torn last line of a
 * log is left out, a stage in progress is shown as in progress).
 *
 * @module
 */
import { readMetricsLog } from "../train/metrics_log.ts";
import type { MetricsRow } from "../train/metrics.ts";
import { episodeLogPath, EPISODES_DIR, readEpisodeLog } from "../episodes/episode_log.ts";
import type { EpisodeRecord } from "../episodes/episode_record.ts";

/** A run found under the viewer's directory. */
export interface RunRef {
  /** Its name in the viewer's URLs (the folder's name). */
  name: string;
  /** Its folder relative to the viewer's directory (`""`: the directory is the run). */
  rel: string;
  /** Its folder. */
  dir: string;
}

/** What the run list shows of a run. */
export interface RunSummary {
  /** The run's name. */
  name: string;
  /** Its preset (config.json), when readable. */
  preset?: string;
  /** Its RL algorithms, in order. */
  algorithms: string[];
  /** The stage: `starting`, `pretrain`, `sft`, an algorithm, `eval`, `done`, or `unreadable`. */
  stage: string;
  /** Progress in the stage (`step 4/8`, `120/240 episodes`). */
  progress: string;
  /** Whether the run has its evaluation written (nothing more will change). */
  done: boolean;
  /** Milliseconds since the epoch of the run's last write. */
  updated: number;
  /** Headline numbers: label and text (EM per agent when evaluated, else the latest training numbers). */
  headline: { label: string; value: string }[];
  /** Why the run could not be read in full (a damaged file), if so. */
  problem?: string;
}

/**
 * Whether a name can be a run's in the viewer's URLs: letters, digits, `.`,
 * `_`, `-`, and not `.` or `..` (the one check of a name taken from a URL).
 *
 * Source: this package (the config's `name` pattern, `^[\w.-]+$`).
 *
 * @param name The name.
 * @returns True when it is one.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isRunName } from "./run_index.ts";
 *
 * assert.deepEqual(["quick", "p8-s2b", "..", "a/b", "%2e"].map(isRunName), [true, true, false, false, false]);
 * ```
 */
export function isRunName(name: string): boolean {
  return /^[\w.-]+$/.test(name) && name !== "." && name !== "..";
}

async function isRunDir(dir: string): Promise<boolean> {
  for (const file of ["config.json", "metrics.jsonl"]) {
    if ((await Deno.stat(`${dir}/${file}`).catch(() => undefined))?.isFile) return true;
  }
  return false;
}

/**
 * The runs under a directory: each sub-folder holding `config.json` or
 * `metrics.jsonl` (hidden folders aside), or the directory itself when it
 * is one run, by name.
 *
 * Source: this package (`runs/<name>/` is where `deno task train` writes).
 *
 * @param root The directory (`runs/`).
 * @returns The runs, by name.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { findRuns } from "./run_index.ts";
 *
 * const root = await Deno.makeTempDir();
 * await Deno.mkdir(`${root}/b`);
 * await Deno.writeTextFile(`${root}/b/metrics.jsonl`, "");
 * await Deno.mkdir(`${root}/not-a-run`);
 * assert.deepEqual((await findRuns(root)).map((r) => [r.name, r.rel]), [["b", "b"]]);
 * assert.deepEqual((await findRuns(`${root}/b`)).map((r) => [r.name, r.rel]), [["b", ""]]);
 * ```
 */
export async function findRuns(root: string): Promise<RunRef[]> {
  if (await isRunDir(root)) {
    const name = root.replace(/\/+$/, "").split("/").at(-1)!;
    return [{ name: isRunName(name) ? name : "run", rel: "", dir: root }];
  }
  const runs: RunRef[] = [];
  for await (const e of Deno.readDir(root)) {
    if (!e.isDirectory || e.name.startsWith(".") || !isRunName(e.name)) continue;
    if (await isRunDir(`${root}/${e.name}`)) runs.push({ name: e.name, rel: e.name, dir: `${root}/${e.name}` });
  }
  return runs.sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * A JSON object file of a run (`config.json`, `eval.json`, `compare.json`)
 * as plain JSON, not validated (an older run's config is shown as it is);
 * undefined when it is missing or not a JSON object.
 *
 * Source: this package (every JSON file of a run is written whole, by a rename: `writeFileAtomic`).
 *
 * @param dir The run's folder.
 * @param file The file's name.
 * @returns The object, or undefined.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readRunJson } from "./run_index.ts";
 *
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dir}/eval.json`, '{"rows": []}');
 * assert.deepEqual(await readRunJson(dir, "eval.json"), { rows: [] });
 * assert.equal(await readRunJson(dir, "compare.json"), undefined);
 * ```
 */
export async function readRunJson(dir: string, file: string): Promise<Record<string, unknown> | undefined> {
  try {
    const json = JSON.parse(await Deno.readTextFile(`${dir}/${file}`));
    return json !== null && typeof json === "object" && !Array.isArray(json) ? json : undefined;
  } catch {
    return undefined; // missing, or being replaced (every JSON file of a run is written whole by a rename)
  }
}

const section = (config: Record<string, unknown> | undefined, name: string) =>
  (config?.[name] ?? {}) as Record<string, unknown>;
const num = (x: unknown) => (typeof x === "number" && Number.isFinite(x) ? x : undefined);

/**
 * The agents' label in the viewer, as eval.md's rows write it.
 *
 * Source: this package (eval.md's agent column).
 *
 * @param r An evaluation row's agent and context policy.
 * @returns `agent (contextPolicy)`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { agentLabel } from "./run_index.ts";
 *
 * assert.equal(agentLabel({ agent: "SFT", contextPolicy: "memory" }), "SFT (memory)");
 * ```
 */
export function agentLabel(r: { agent: string; contextPolicy: string }): string {
  return `${r.agent} (${r.contextPolicy})`;
}

/**
 * A run's summary for the run list: preset, stage and progress, headline
 * numbers. A run with `eval.md` is done (mean EM over the test sets per
 * agent, the teacher aside); one being evaluated counts its episodes in
 * `episodes/eval.jsonl`; one training shows its last metrics row's stage and
 * step and the latest numbers (SFT loss, RL reward). A torn last line is
 * left out; a file damaged elsewhere is named in `problem`.
 *
 * Source: this package.
 *
 * @param run The run.
 * @returns Its summary.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runSummary } from "./run_index.ts";
 *
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dir}/config.json`, JSON.stringify({ preset: "quick", rl: { algorithms: ["mempo"], steps: 8 }, sft: { steps: 100 } }));
 * await Deno.writeTextFile(`${dir}/metrics.jsonl`, '{"stage":"sft","step":0,"sft/loss":4}\n{"stage":"mempo","step":2,"rollout/reward_mean":0.5}\n{"stage":"mem');
 * const s = await runSummary({ name: "r", rel: "r", dir });
 * assert.deepEqual([s.preset, s.stage, s.progress, s.done], ["quick", "mempo", "step 3/8", false]);
 * assert.deepEqual(s.headline, [{ label: "SFT loss", value: "4.000 (step 1)" }, { label: "MemPO reward", value: "0.50 (step 3)" }]);
 * ```
 */
export async function runSummary(run: RunRef): Promise<RunSummary> {
  const config = await readRunJson(run.dir, "config.json");
  const rl = section(config, "rl");
  const sft = section(config, "sft");
  const algorithms = Array.isArray(rl.algorithms) ? rl.algorithms.map(String) : [];
  const base = {
    name: run.name,
    ...(typeof config?.preset === "string" ? { preset: config.preset } : {}),
    algorithms,
    updated: await lastWrite(run.dir),
  };
  let rows: MetricsRow[];
  try {
    rows = (await readMetricsLog(`${run.dir}/metrics.jsonl`)).rows;
  } catch (e) {
    return { ...base, stage: "unreadable", progress: "", done: false, headline: [], problem: (e as Error).message };
  }
  const evaluation = await readRunJson(run.dir, "eval.json");
  const done = evaluation !== undefined && (await Deno.stat(`${run.dir}/eval.md`).catch(() => undefined)) !== undefined;
  if (done) {
    return { ...base, stage: "done", progress: "evaluated", done, headline: evalHeadline(evaluation) };
  }
  const evalLog = `${run.dir}/${EPISODES_DIR}/eval.jsonl`;
  if ((await Deno.stat(evalLog).catch(() => undefined)) !== undefined) {
    let n = 0;
    try {
      n = (await readEpisodeLog(evalLog)).records.length;
    } catch (e) {
      return { ...base, stage: "eval", progress: "", done, headline: [], problem: (e as Error).message };
    }
    const data = section(config, "data");
    const cells = (4 + algorithms.length) * (Array.isArray(data.testObjectives) ? data.testObjectives.length : 0);
    const total = cells * (num(section(config, "eval").questions) ?? 0);
    return {
      ...base,
      stage: "eval",
      progress: total > 0 ? `${n}/${total} episodes` : `${n} episodes`,
      done,
      headline: trainingHeadline(rows),
    };
  }
  const last = rows.at(-1);
  if (last === undefined) return { ...base, stage: "starting", progress: "", done, headline: [] };
  const stage = String(last.stage);
  const total = stage === "sft"
    ? num(sft.steps)
    : stage === "pretrain"
    ? num(sft.pretrainHorizon) ?? num(sft.pretrainSteps)
    : num(rl.steps);
  const step = Number(last.step) + 1;
  return {
    ...base,
    stage,
    progress: `step ${step}${total !== undefined ? `/${total}` : ""}`,
    done,
    headline: trainingHeadline(rows),
  };
}

/** The newest modification time of a run's files (its folder, metrics and episode logs). */
async function lastWrite(dir: string): Promise<number> {
  let t = 0;
  for (const f of ["", "/metrics.jsonl", "/eval.json", `/${EPISODES_DIR}`]) {
    const m = (await Deno.stat(`${dir}${f}`).catch(() => undefined))?.mtime?.getTime() ?? 0;
    t = Math.max(t, m);
  }
  return t;
}

const ALGORITHM_NAMES: Readonly<Record<string, string>> = { ppo: "PPO", grpo: "GRPO", mempo: "MemPO" };

function trainingHeadline(rows: readonly MetricsRow[]): { label: string; value: string }[] {
  const out: { label: string; value: string }[] = [];
  const stages = [...new Set(rows.map((r) => String(r.stage)))];
  for (const stage of stages) {
    const of = rows.filter((r) => r.stage === stage);
    const last = of.at(-1)!;
    if (stage === "sft" || stage === "pretrain") {
      const loss = num(last["sft/loss"]);
      if (loss !== undefined) {
        out.push({
          label: `${stage === "sft" ? "SFT" : "warm-up"} loss`,
          value: `${loss.toFixed(3)} (step ${Number(last.step) + 1})`,
        });
      }
      continue;
    }
    // the mean reward of the last 5 steps (one step's 16 episodes are a noisy reading)
    const recent = of.slice(-5).map((r) => num(r["rollout/reward_mean"])).filter((x) => x !== undefined);
    if (recent.length === 0) continue;
    const mean = recent.reduce((a, b) => a + b, 0) / recent.length;
    out.push({
      label: `${ALGORITHM_NAMES[stage] ?? stage} reward`,
      value: `${mean.toFixed(2)} (step ${Number(last.step) + 1})`,
    });
  }
  return out;
}

function evalHeadline(evaluation: Record<string, unknown>): { label: string; value: string }[] {
  const rows = Array.isArray(evaluation.rows) ? evaluation.rows as Record<string, unknown>[] : [];
  const byAgent = new Map<string, number[]>();
  for (const r of rows) {
    if (r.agent === "Teacher" || typeof r.em !== "number") continue;
    const label = agentLabel(r as { agent: string; contextPolicy: string });
    byAgent.set(label, [...(byAgent.get(label) ?? []), r.em]);
  }
  return [...byAgent].map(([label, ems]) => ({
    label: `${label} mean EM`, // over the test sets
    value: (ems.reduce((a, b) => a + b, 0) / ems.length).toFixed(2),
  }));
}

/** One training chart: its title and the metrics row field it plots per stage. */
export interface CurveSpec {
  /** The chart's id and title. */
  id: string;
  /** The title. */
  title: string;
  /** The metrics field. */
  field: string;
  /** The stages it plots (`rl`: every RL algorithm). */
  stages: "rl" | "sft" | "pretrain";
}

/** The charts of a run page: SFT, then per RL algorithm reward, equal-reward share, entropy, KL and policy loss. */
export const CURVES: readonly CurveSpec[] = [
  { id: "reward", title: "Mean outcome reward", field: "rollout/reward_mean", stages: "rl" },
  { id: "equal", title: "Share of groups with equal rewards", field: "grpo/frac_zero_std", stages: "rl" },
  { id: "entropy", title: "Entropy of the sampled tokens", field: "policy/entropy", stages: "rl" },
  { id: "kl", title: "KL to the reference (SFT) policy", field: "kl/ref", stages: "rl" },
  { id: "loss", title: "Policy loss", field: "loss/policy", stages: "rl" },
  { id: "sft", title: "SFT cross-entropy", field: "sft/loss", stages: "sft" },
  { id: "pretrain", title: "Induction warm-up cross-entropy", field: "sft/loss", stages: "pretrain" },
];

/** One chart's data, aligned for uPlot: x = the steps, one series per stage (null where a stage has no row). */
export interface CurveData {
  /** The chart. */
  id: string;
  /** Its title. */
  title: string;
  /** Step numbers (1-based), ascending. */
  x: number[];
  /** Series by label (`MemPO`), each as long as `x`. */
  series: Record<string, (number | null)[]>;
}

/**
 * The training charts of a run from its metrics rows: for each
 * {@linkcode CURVES} entry with any point, the steps and one series per
 * stage, aligned on the union of the steps (uPlot's data layout).
 *
 * Source: uPlot's data layout (`[xs, ...ys]`, one x array shared by the series).
 *
 * @param rows The metrics rows.
 * @returns The charts with points.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runCurves } from "./run_index.ts";
 *
 * const rows = [
 *   { stage: "mempo", step: 0, "rollout/reward_mean": 0.5 }, { stage: "mempo", step: 1, "rollout/reward_mean": 0.75 },
 *   { stage: "grpo", step: 0, "rollout/reward_mean": 0.25 },
 * ];
 * const [reward] = runCurves(rows);
 * assert.deepEqual(reward, { id: "reward", title: "Mean outcome reward", x: [1, 2], series: { MemPO: [0.5, 0.75], GRPO: [0.25, null] } });
 * ```
 */
export function runCurves(rows: readonly MetricsRow[]): CurveData[] {
  const out: CurveData[] = [];
  const rlStages = [...new Set(rows.map((r) => String(r.stage)))].filter((s) => s !== "sft" && s !== "pretrain");
  for (const spec of CURVES) {
    const stages = spec.stages === "rl" ? rlStages : [spec.stages];
    const points = new Map<string, Map<number, number>>();
    for (const r of rows) {
      const stage = String(r.stage);
      const y = num(r[spec.field]);
      if (!stages.includes(stage) || y === undefined) continue;
      const label = spec.stages === "rl" ? ALGORITHM_NAMES[stage] ?? stage : spec.stages === "sft" ? "SFT" : "warm-up";
      if (!points.has(label)) points.set(label, new Map());
      points.get(label)!.set(Number(r.step) + 1, y);
    }
    if (points.size === 0) continue;
    const x = [...new Set([...points.values()].flatMap((m) => [...m.keys()]))].sort((a, b) => a - b);
    const series = Object.fromEntries([...points].map(([label, m]) => [label, x.map((s) => m.get(s) ?? null)]));
    out.push({ id: spec.id, title: spec.title, x, series });
  }
  return out;
}

/**
 * The episode logs a run has: `eval` first, then the RL stages by name.
 *
 * Source: `episodeLogPath` (`RUN/episodes/<stage>.jsonl`).
 *
 * @param run The run.
 * @returns The stages.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { episodeStages } from "./run_index.ts";
 *
 * const dir = await Deno.makeTempDir();
 * await Deno.mkdir(`${dir}/episodes`);
 * for (const f of ["mempo.jsonl", "eval.jsonl", "grpo.jsonl", ".eval.jsonl.tmp-1"]) await Deno.writeTextFile(`${dir}/episodes/${f}`, "");
 * assert.deepEqual(await episodeStages({ name: "r", rel: "r", dir }), ["eval", "grpo", "mempo"]);
 * ```
 */
export async function episodeStages(run: RunRef): Promise<string[]> {
  const stages: string[] = [];
  try {
    for await (const e of Deno.readDir(`${run.dir}/${EPISODES_DIR}`)) {
      if (e.isFile && /^[a-z][a-z0-9_-]*\.jsonl$/.test(e.name)) stages.push(e.name.replace(/\.jsonl$/, ""));
    }
  } catch {
    return [];
  }
  return stages.sort((a, b) => (a === "eval" ? -1 : b === "eval" ? 1 : a.localeCompare(b)));
}

/**
 * The records of one of a run's episode logs, as far as they are complete
 * (a torn last line left out; a log being written is read as it stands).
 *
 * Source: `readEpisodeLog`.
 *
 * @param run The run.
 * @param stage `eval` or an RL algorithm.
 * @returns The records (none when there is no such log).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runEpisodeRecords } from "./run_index.ts";
 *
 * const dir = await Deno.makeTempDir();
 * await Deno.mkdir(`${dir}/episodes`);
 * await Deno.writeTextFile(`${dir}/episodes/eval.jsonl`, '{"v":1,"stage":"eval","turns":[]}\n{"v":1,"st');
 * assert.equal((await runEpisodeRecords({ name: "r", rel: "r", dir }, "eval")).length, 1);
 * ```
 */
export async function runEpisodeRecords(run: RunRef, stage: string): Promise<EpisodeRecord[]> {
  return (await readEpisodeLog(episodeLogPath(run.dir, stage))).records;
}
