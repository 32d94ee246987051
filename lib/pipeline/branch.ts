/**
 * Branching a run: a new run that starts RL from another run's finished SFT
 * checkpoint, so RL settings can be compared from one SFT policy without
 * training it again (`deno task train --from runs/NAME --config rl.json`).
 *
 * @module
 */
import { type ExperimentConfig, valueAt } from "../config/experiment.ts";
import { withoutRetired } from "../config/run_config.ts";
import { currentCheckpoint, readCheckpointRecord, verifyCheckpoint } from "../model/checkpoint.ts";
import { DataError, UsageError } from "../errors.ts";
import { readJsonFile } from "../json_file.ts";
import { readMetricsLog } from "../train/metrics_log.ts";
import { SFT_STAGES } from "../stages.ts";
import { pathExists } from "../path_exists.ts";

/**
 * The config fields the SFT weights depend on (dotted paths): a branch must
 * keep them. `rl.maxTurnTokens` caps the teacher's turns in the SFT demonstrations.
 */
export const SFT_FIELDS = ["seed", "dataDir", "model", "data", "sft", "rl.maxTurnTokens"] as const;

/**
 * The first field the SFT weights depend on ({@linkcode SFT_FIELDS}) where a
 * saved config and another differ, as `[path, saved, other]`; undefined when
 * they agree on all of them (the SFT weights of one serve the other). A
 * retired field the saved config holds at the value the code now always uses
 * (`RETIRED_VALUES`, `withoutRetired`) is no difference.
 *
 * Source: this package (`--from` and the released SFT policy).
 *
 * @param saved The config the SFT weights were trained under.
 * @param config The config of the run that would start from them.
 * @returns The first difference, or undefined.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sftConfigDifference } from "./branch.ts";
 * import { resolveConfig } from "../config/experiment.ts";
 *
 * const a = resolveConfig("quick");
 * assert.equal(sftConfigDifference(a, { ...a, rl: { ...a.rl, lr: 1 } }), undefined);
 * assert.deepEqual(sftConfigDifference(a, { ...a, sft: { ...a.sft, lr: 1 } }), ["sft.lr", 0.003, 1]);
 * // a field retired at the value the code kept: the same SFT
 * assert.equal(sftConfigDifference({ ...a, sft: { ...a.sft, drillKinds: ["extract"] } }, a), undefined);
 * assert.equal(sftConfigDifference({ ...a, data: { ...a.data, markers: false } }, a), undefined);
 * assert.deepEqual(sftConfigDifference({ ...a, sft: { ...a.sft, drillKinds: ["pop"] } }, a)?.[0], "sft.drillKinds");
 * ```
 */
export function sftConfigDifference(saved: unknown, config: unknown): [string, unknown, unknown] | undefined {
  // a retired field at its kept value is left out, unless `config` holds the field too
  const kept = withoutRetired(saved, (path) => valueAt(config, path) !== undefined);
  for (const field of SFT_FIELDS) {
    const d = firstDifference(valueAt(kept, field), valueAt(config, field), field);
    if (d !== undefined) return d;
  }
  return undefined;
}

/** The first leaf where two JSON values differ, as `[path, a, b]` (undefined when equal). */
function firstDifference(a: unknown, b: unknown, path: string): [string, unknown, unknown] | undefined {
  const isObject = (x: unknown) => typeof x === "object" && x !== null;
  if (isObject(a) && isObject(b) && Array.isArray(a) === Array.isArray(b)) {
    const ra = a as Record<string, unknown>;
    const rb = b as Record<string, unknown>;
    for (const k of [...new Set([...Object.keys(ra), ...Object.keys(rb)])].sort()) {
      const d = firstDifference(ra[k], rb[k], Array.isArray(a) ? `${path}[${k}]` : `${path}.${k}`);
      if (d !== undefined) return d;
    }
    return undefined;
  }
  return JSON.stringify(a) === JSON.stringify(b) ? undefined : [path, a, b];
}

/**
 * Prepares `outDir` as a run that continues from `fromDir`'s finished SFT
 * stage: copies its tokenizer, SFT checkpoint and the warm-up and SFT rows of
 * its `metrics.jsonl`, and writes `config`. `runPipeline({ resume: true })`
 * on `outDir` then loads the SFT weights and runs RL and evaluation as
 * `config` says. Refused, before anything is written, when `config` differs
 * from the run's in a field the SFT weights depend on ({@linkcode SFT_FIELDS}),
 * when the run's SFT stage is not finished, or when `outDir` is `fromDir`.
 * A previous run in `outDir` is replaced, as a fresh run replaces it; a
 * non-empty `outDir` without `metrics.jsonl` is refused.
 *
 * Source: verl `actor_rollout_ref.model.path` (RL starts from a saved SFT
 * model); TRL `PPOTrainer(model=sft_checkpoint)`.
 *
 * @param fromDir A run directory with a finished `sft/` checkpoint.
 * @param outDir The new run's directory.
 * @param config The new run's config (RL and evaluation may differ).
 * @returns Nothing; `outDir` is ready for `runPipeline({ config, outDir, resume: true })`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { resolveConfig } from "../config/experiment.ts";
 * import { branchRun } from "./branch.ts";
 *
 * const from = await Deno.makeTempDir();
 * const config = resolveConfig("quick", { dataDir: "data/quick" });
 * await Deno.writeTextFile(`${from}/config.json`, JSON.stringify(config));
 * const out = await Deno.makeTempDir();
 * await assert.rejects(
 *   branchRun(from, out, { ...config, sft: { ...config.sft, steps: 90 } }),
 *   /sft\.steps is 100 in .* and 90 here: the SFT weights depend on it/,
 * );
 * await assert.rejects(branchRun(from, out, config), /its SFT stage has not finished/);
 * ```
 */
export async function branchRun(fromDir: string, outDir: string, config: ExperimentConfig): Promise<void> {
  const fail = (why: string): never => {
    throw new DataError(`Cannot branch from ${fromDir}: ${why}`);
  };
  const real = async (p: string) => await Deno.realPath(p).catch(() => undefined);
  const fromReal = await real(fromDir);
  if (fromReal === undefined) fail("no such directory");
  if (fromReal === (await real(outDir))) {
    throw new UsageError(`Cannot branch from ${fromDir}: the new run needs its own directory (give --name or --out)`);
  }
  const saved = await readJsonFile(`${fromDir}/config.json`, { optional: true }).catch((e: Error) => fail(e.message)) ??
    fail("it has no config.json");
  const d = sftConfigDifference(saved, config);
  if (d !== undefined) {
    throw new UsageError(
      `Cannot branch from ${fromDir}: ${d[0]} is ${JSON.stringify(d[1])} in ${fromDir} and ${
        JSON.stringify(d[2])
      } here: the SFT weights depend on it`,
    );
  }
  const sftDir = `${fromDir}/sft`;
  const record = await readCheckpointRecord(sftDir).catch((e: Error) => fail(e.message));
  const state = record?.state as { step: number; done: boolean } | undefined;
  if (state?.done !== true) {
    fail(`its SFT stage has not finished (${state === undefined ? "no sft/ checkpoint" : `step ${state.step}`})`);
  }
  await verifyCheckpoint(sftDir).catch((e: Error) => fail(e.message));
  if (!(await pathExists(`${fromDir}/metrics.jsonl`))) fail("it has no metrics.jsonl");
  const { rows: all } = await readMetricsLog(`${fromDir}/metrics.jsonl`).catch((e: Error) => fail(e.message));
  const rows = all.filter((row) => SFT_STAGES.includes(String(row.stage)));
  const tokenizer = await Deno.readTextFile(`${fromDir}/tokenizer.json`).catch(() => fail("it has no tokenizer.json"));
  // a previous run in outDir is replaced (as a fresh run replaces it); anything else is left alone
  const entries = await Array.fromAsync(Deno.readDir(outDir)).catch(() => []);
  if (entries.length > 0 && !entries.some((e) => e.name === "metrics.jsonl")) {
    fail(`${outDir} is not empty and holds no run`);
  }
  // the new run is put together beside outDir and moved into place by one rename
  const out = outDir.replace(/\/+$/, "");
  const slash = out.lastIndexOf("/");
  const parent = slash < 0 ? "." : out.slice(0, slash) || "/";
  const staging = `${parent}/.${out.slice(slash + 1)}.branch-${Deno.pid}`;
  await Deno.remove(staging, { recursive: true }).catch(() => {});
  await Deno.mkdir(`${staging}/sft`, { recursive: true });
  const source = (await currentCheckpoint(sftDir))!;
  for (const e of Deno.readDirSync(source)) {
    if (e.isFile) await Deno.copyFile(`${source}/${e.name}`, `${staging}/sft/${e.name}`);
  }
  await Deno.writeTextFile(`${staging}/tokenizer.json`, tokenizer);
  await Deno.writeTextFile(`${staging}/metrics.jsonl`, rows.map((r) => `${JSON.stringify(r)}\n`).join(""));
  await Deno.writeTextFile(`${staging}/config.json`, JSON.stringify(config, null, 2));
  await Deno.remove(outDir, { recursive: true }).catch(() => {});
  await Deno.rename(staging, outDir);
}
