/**
 * One RL setting against others over seeds: runs that differ in one config
 * field (`rl.memCoef`), each evaluated on the same sets, read back as one
 * agent's EM per size; per run its mean over the sizes, per setting the mean
 * over its runs (RL seeds) and their range, and the setting that a rule fixed
 * before the runs keeps (the highest mean; within `tie` of the baseline's, the
 * baseline). What `deno task sweep` prints.
 *
 * A run is read from `RUN/<split>/eval.json` (`deno task eval RUN --split valid`; the run's own `eval.json` for the
 * test sets) or, for a seed of `deno task compare`, `compare/seed<s>/compare_eval_<split>.json`.
 *
 * @module
 */
import { DataError, UsageError } from "../../lib/errors.ts";
import { readJsonFile } from "../../lib/json_file.ts";
import { valueAt } from "../../lib/config/experiment.ts";
import { readRunConfig } from "../../lib/config/run_config.ts";
import { readEvalJson } from "../../lib/pipeline/eval_json.ts";
import { mean } from "../../lib/eval/_mean.ts";
import { SFT_AGENT } from "../../lib/eval/evaluate.ts";
import type { DataSplit } from "../../lib/data/build.ts";

/** One run's evaluation of the agent swept. */
export interface SweepRun {
  /** The run directory given. */
  dir: string;
  /** The swept field's value, as JSON (`0.1`). */
  setting: string;
  /** The RL seed (`rl.seed`, else the run's `seed`). */
  seed: number;
  /** EM per size, by objectives per question. */
  em: Record<number, number>;
  /** The SFT start's EM per size (memory context), where the file has it. */
  sft?: Record<number, number>;
}

/** One setting over its runs. */
export interface SweepSetting {
  /** The field's value, as JSON. */
  setting: string;
  /** Its runs' seeds, ascending. */
  seeds: number[];
  /** Each run's EM averaged over the sizes (each size weighs the same), in `seeds`' order. */
  perSeed: number[];
  /** The mean of `perSeed`. */
  mean: number;
  /** The lowest and highest of `perSeed`. */
  range: [number, number];
  /** EM per size, averaged over the runs. */
  bySize: Record<number, number>;
}

/** What {@linkcode sweepSettings} returns. */
export interface SweepResult {
  /** The config field swept (`rl.memCoef`). */
  field: string;
  /** The agent read (`MemPO`). */
  agent: string;
  /** The sizes (objectives per question), ascending. */
  sizes: number[];
  /** The settings, in the order their first run was given. */
  settings: SweepSetting[];
  /** The SFT start's EM over the sizes, where a run's file has it. */
  sft?: number;
  /** The setting with the highest mean. */
  best: string;
  /** The setting kept: the highest mean; within `tie` of the baseline's mean, the baseline. */
  kept: string;
  /** The baseline (as JSON) and the tie, when a baseline was given. */
  rule?: { baseline: string; tie: number };
}

type Row = { agent?: unknown; contextPolicy?: unknown; objectives?: unknown; em?: unknown };

function emBySize(rows: Row[], agent: string, file: string, memoryOnly: boolean): Record<number, number> {
  const em: Record<number, number> = {};
  for (const r of rows) {
    if (r.agent !== agent || (memoryOnly && r.contextPolicy !== "memory")) continue;
    if (typeof r.objectives !== "number" || typeof r.em !== "number" || !Number.isFinite(r.em)) {
      throw new DataError(`${file}: a row of ${agent} has no numeric objectives and em (${JSON.stringify(r)})`);
    }
    em[r.objectives] = r.em;
  }
  return em;
}

/**
 * Reads one run of a sweep: its config's field and RL seed, and the agent's
 * EM per size on the split's sets.
 *
 * Source: this package (`eval.json` by `writeEvalFiles`, `compare_eval_<split>.json` by `compareRun`).
 *
 * @param dir A run directory or a compare seed's (`runs/NAME/compare/seed1`).
 * @param field The config field swept, as a dotted path (`rl.memCoef`).
 * @param agent The agent's name in the evaluation (`MemPO`), or several (their EM per size averaged).
 * @param split The sets read.
 * @returns The run.
 * @throws {DataError} When the config lacks the field, or no evaluation of the agent on the split is there (the file named).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readSweepRun } from "./setting_sweep.ts";
 *
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dir}/config.json`, JSON.stringify({ preset: "default", seed: 0, rl: { memCoef: 0.3, seed: 2 } }));
 * await assert.rejects(() => readSweepRun(dir, "rl.memCoef", "MemPO", "valid"), /no evaluation of MemPO on the valid sets/);
 * await Deno.mkdir(`${dir}/valid`);
 * const rows = [{ agent: "MemPO", contextPolicy: "memory", objectives: 1, em: 0.5 }];
 * await Deno.writeTextFile(`${dir}/valid/eval.json`, JSON.stringify({ rows }));
 * assert.deepEqual(await readSweepRun(dir, "rl.memCoef", "MemPO", "valid"), { dir, setting: "0.3", seed: 2, em: { 1: 0.5 } });
 * ```
 */
export async function readSweepRun(
  dir: string,
  field: string,
  agent: string | readonly string[],
  split: DataSplit,
): Promise<SweepRun> {
  const agents = typeof agent === "string" ? [agent] : agent;
  if (agents.length === 0) throw new UsageError("a sweep reads at least one agent");
  const config = await readRunConfig(dir);
  const value = valueAt(config, field);
  if (value === undefined) throw new DataError(`${dir}/config.json has no field ${field}`);
  const run = { dir, setting: JSON.stringify(value), seed: config.rl.seed ?? config.seed };
  const evalDir = split === "test" ? dir : `${dir}/${split}`;
  const evalPath = `${evalDir}/eval.json`;
  const comparePath = `${dir}/compare_eval${split === "test" ? "" : `_${split}`}.json`;
  // each file read once; several agents' EM averaged per size (a rule over "both algorithms")
  const agentsEm = (rows: Row[], file: string, memoryOnly: boolean) => {
    const each = agents.map((a) => emBySize(rows, a, file, memoryOnly));
    if (each.some((em) => Object.keys(em).length === 0)) return undefined;
    const sizes = Object.keys(each[0]!);
    const odd = each.find((em) => Object.keys(em).join() !== sizes.join());
    if (odd !== undefined) {
      throw new DataError(
        `${dir}: the agents ${agents.join(", ")} are evaluated on different sizes (${sizes.join()} and ${
          Object.keys(odd).join()
        })`,
      );
    }
    return Object.fromEntries(sizes.map((k) => [k, mean(each.map((em) => em[+k]!))])) as Record<number, number>;
  };
  const evaluated = await readEvalJson(evalDir, `sweep ${dir}`) as { rows?: Row[] } | undefined;
  if (evaluated !== undefined && Array.isArray(evaluated.rows)) {
    const em = agentsEm(evaluated.rows, evalPath, true);
    if (em !== undefined) {
      const sft = emBySize(evaluated.rows, SFT_AGENT, evalPath, true);
      return Object.keys(sft).length > 0 ? { ...run, em, sft } : { ...run, em };
    }
  }
  const compared = await readJsonFile(comparePath, { optional: true }) as { rows?: Row[] } | undefined;
  if (compared !== undefined && Array.isArray(compared.rows)) {
    const em = agentsEm(compared.rows, comparePath, false);
    if (em !== undefined) return { ...run, em };
  }
  throw new DataError(
    `${dir}: no evaluation of ${agents.join(", ")} on the ${split} sets (neither ${evalPath} nor ${comparePath} ` +
      `has its rows; deno task eval ${dir}${split === "test" ? "" : ` --split ${split}`} writes them)`,
  );
}

/**
 * The sweep's table: each setting's runs averaged over the sizes, then over
 * the runs, and the setting kept.
 *
 * Source: this package (the rules of docs/research/what_to_remember.md, written before their runs).
 *
 * @param runs The runs, every one evaluated on the same sizes; one run per setting and seed.
 * @param options `field` and `agent` for the record; `baseline` (as JSON, `0.1`) and `tie` for the rule.
 * @returns The settings and the one kept.
 * @throws {DataError} When runs differ in their sizes or a setting and seed appear twice.
 * @throws {UsageError} When there is no run, or the baseline is none of the settings.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sweepSettings } from "./setting_sweep.ts";
 *
 * const run = (setting: string, seed: number, em: number[]) => ({ dir: `r${setting}-${seed}`, setting, seed, em: { 1: em[0]!, 8: em[1]! } });
 * const runs = [run("0.1", 0, [1, 0.2]), run("0.1", 1, [0.9, 0.1]), run("0.3", 0, [1, 0.3]), run("0.3", 1, [1, 0.1])];
 * const result = sweepSettings(runs, { field: "rl.memCoef", agent: "MemPO", baseline: "0.1", tie: 0.005 });
 * assert.deepEqual(result.settings.map((s) => s.perSeed.map((x) => +x.toFixed(3))), [[0.6, 0.5], [0.65, 0.55]]);
 * assert.equal(result.kept, "0.3"); // 0.6 against 0.55
 * assert.equal(sweepSettings(runs, { field: "f", agent: "a", baseline: "0.1", tie: 0.06 }).kept, "0.1");
 * ```
 */
export function sweepSettings(
  runs: readonly SweepRun[],
  options: { field: string; agent: string; baseline?: string; tie?: number },
): SweepResult {
  if (runs.length === 0) throw new UsageError("a sweep needs at least one run");
  const sizes = Object.keys(runs[0]!.em).map(Number).sort((a, b) => a - b);
  const seen = new Set<string>();
  for (const r of runs) {
    const own = Object.keys(r.em).map(Number).sort((a, b) => a - b);
    if (own.join() !== sizes.join()) {
      throw new DataError(
        `${r.dir} is evaluated on ${own.join(", ")} objectives, ${runs[0]!.dir} on ${
          sizes.join(", ")
        }: a sweep compares the same sizes`,
      );
    }
    const key = `${r.setting} seed ${r.seed}`;
    if (seen.has(key)) throw new DataError(`${r.dir}: ${key} is given twice`);
    seen.add(key);
  }
  const overSizes = (em: Record<number, number>) => mean(sizes.map((k) => em[k]!));
  const settings: SweepSetting[] = [...new Set(runs.map((r) => r.setting))].map((setting) => {
    const own = runs.filter((r) => r.setting === setting).sort((a, b) => a.seed - b.seed);
    const perSeed = own.map((r) => overSizes(r.em));
    return {
      setting,
      seeds: own.map((r) => r.seed),
      perSeed,
      mean: mean(perSeed),
      range: [Math.min(...perSeed), Math.max(...perSeed)],
      bySize: Object.fromEntries(sizes.map((k) => [k, mean(own.map((r) => r.em[k]!))])),
    };
  });
  const best = settings.reduce((a, b) => (b.mean > a.mean ? b : a));
  let kept = best.setting;
  let rule: SweepResult["rule"];
  if (options.baseline !== undefined) {
    const base = settings.find((s) => s.setting === options.baseline);
    if (base === undefined) {
      throw new UsageError(
        `--baseline ${options.baseline} is none of the settings run (${settings.map((s) => s.setting).join(", ")})`,
      );
    }
    const tie = options.tie ?? 0;
    rule = { baseline: base.setting, tie };
    if (best.mean - base.mean <= tie) kept = base.setting;
  }
  const withSft = runs.find((r) => r.sft !== undefined && sizes.every((k) => r.sft![k] !== undefined));
  return {
    field: options.field,
    agent: options.agent,
    sizes,
    settings,
    ...(withSft ? { sft: overSizes(withSft.sft!) } : {}),
    best: best.setting,
    kept,
    ...(rule ? { rule } : {}),
  };
}

/**
 * The sweep as Markdown: per setting its runs' EM over the sizes by seed, the
 * mean and range, EM per size, and the setting kept with its rule.
 *
 * Source: this package.
 *
 * @param result What {@linkcode sweepSettings} returned.
 * @returns The Markdown text.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sweepMarkdown, sweepSettings } from "./setting_sweep.ts";
 *
 * const runs = [{ dir: "a", setting: "0.1", seed: 0, em: { 1: 1, 8: 0.25 } }];
 * const md = sweepMarkdown(sweepSettings(runs, { field: "rl.memCoef", agent: "MemPO" }));
 * assert.match(md, /\| 0\.1 \| 0: 0\.625 \| 0\.625 \| 0\.625–0\.625 \| 1\.00 \| 0\.25 \|/);
 * ```
 */
export function sweepMarkdown(result: SweepResult): string {
  const { field, agent, sizes, settings } = result;
  const f3 = (x: number) => x.toFixed(3);
  const lines = [
    `# ${agent} over \`${field}\``,
    "",
    `${agent}'s EM averaged over ${
      sizes.join(", ")
    } objectives (each size weighs the same): per run (RL seed: value), ` +
    "the mean over the runs and their range, and EM per size averaged over the runs.",
    "",
    `| ${field} | per seed | mean | range | ${sizes.map((k) => `${k} obj`).join(" | ")} |`,
    `| --- | --- | --- | --- | ${sizes.map(() => "---").join(" | ")} |`,
    ...settings.map((s) =>
      `| ${s.setting} | ${s.seeds.map((seed, i) => `${seed}: ${f3(s.perSeed[i]!)}`).join(", ")} | ${f3(s.mean)} | ` +
      `${f3(s.range[0])}–${f3(s.range[1])} | ${sizes.map((k) => s.bySize[k]!.toFixed(2)).join(" | ")} |`
    ),
    "",
  ];
  if (result.sft !== undefined) lines.push(`The SFT start (memory context): ${f3(result.sft)}.`, "");
  const best = settings.find((s) => s.setting === result.best)!;
  const base = settings.find((s) => s.setting === result.rule?.baseline);
  let why = `the highest mean (${f3(best.mean)})`;
  if (result.rule && base && base !== best) {
    why = result.kept === base.setting
      ? `the highest mean, ${best.setting}'s ${f3(best.mean)}, is within ${result.rule.tie} of ${base.setting}'s ${
        f3(base.mean)
      }`
      : `the highest mean (${f3(best.mean)}), more than ${result.rule.tie} above ${base.setting}'s (${f3(base.mean)})`;
  }
  lines.push(`Kept: ${field} = ${result.kept}: ${why}.`, "");
  return lines.join("\n");
}
