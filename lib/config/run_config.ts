/**
 * A run directory's `config.json`, read back and checked: what `deno task
 * eval`, `--resume`, `--from` and the probes start from.
 *
 * @module
 */
import {
  DATA_CONFIG_SCHEMA,
  EVAL_CONFIG_SCHEMA,
  type ExperimentConfig,
  resolveConfig,
  RL_CONFIG_SCHEMA,
  SFT_CONFIG_SCHEMA,
  validateConfig,
} from "./experiment.ts";
import { DataError, UsageError } from "../errors.ts";
import { readJsonFile } from "../json_file.ts";

// the config's sections, each with its schema (which fields are optional)
const SECTIONS = [
  ["data", DATA_CONFIG_SCHEMA],
  ["sft", SFT_CONFIG_SCHEMA],
  ["rl", RL_CONFIG_SCHEMA],
  ["eval", EVAL_CONFIG_SCHEMA],
] as const;

/**
 * Fields that have left the config (docs/design.md#retired), each with the value the code has always used since: a
 * config saved before (a run's `config.json`, the released SFT policy's manifest, a data directory's manifest) that
 * holds one of them at that value is read as today's config, which leaves it out ({@linkcode withoutRetired}); at any
 * other value it is refused as an unknown field (`resolveConfig`). The fields listed are those the saved configs of
 * the presets hold (data and SFT); `deno task train --config` refuses them all.
 */
export const RETIRED_VALUES: Readonly<Record<string, unknown>> = Object.freeze({
  "data.trainMarkers": 0,
  "data.trainOrder": "marker",
  "data.subjectIndex": false,
  "data.validFraction": 0.15,
  "data.markers": false,
  "data.documents": "fact",
  "sft.pretrainBatchSize": 32,
  "sft.inductionLists": 0,
  "sft.inductionNoise": 4,
  "sft.drillKinds": ["extract"],
  "sft.carryShare": 0,
  "sft.joinMax": 7,
  "sft.questionFiller": 0,
});

/**
 * A saved config less the retired fields it holds at the value the code now
 * always uses ({@linkcode RETIRED_VALUES}): what is read in its place. A
 * retired field at another value stays (and is refused where the config is
 * validated); so does one that `keep` names.
 *
 * ```text
 * withoutRetired(saved) = saved − { path ∈ RETIRED_VALUES : saved[path] = RETIRED_VALUES[path], ¬keep(path) }
 * ```
 *
 * Source: this package (a saved run is read as it ran).
 *
 * @param saved A saved config, or any JSON value (returned as it is when not an object).
 * @param keep Paths (`"data.markers"`) to leave in place whatever their value. @default none
 * @returns A copy of `saved` without them (`saved` is not changed).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { withoutRetired } from "./run_config.ts";
 *
 * const saved = { seed: 0, data: { trainCount: 4, markers: false }, sft: { drillKinds: ["pop"] } };
 * assert.deepEqual(withoutRetired(saved), { seed: 0, data: { trainCount: 4 }, sft: { drillKinds: ["pop"] } });
 * assert.deepEqual(withoutRetired(saved, (path) => path === "data.markers"), saved);
 * assert.equal(saved.data.markers, false);
 * ```
 */
export function withoutRetired<T>(saved: T, keep: (path: string) => boolean = () => false): T {
  if (typeof saved !== "object" || saved === null) return saved;
  const out = structuredClone(saved) as Record<string, Record<string, unknown> | undefined>;
  for (const [path, value] of Object.entries(RETIRED_VALUES)) {
    const [section, field] = path.split(".") as [string, string];
    const own = out[section];
    if (
      typeof own === "object" && own !== null && field in own && !keep(path) &&
      JSON.stringify(own[field]) === JSON.stringify(value)
    ) delete own[field];
  }
  return out as T;
}

/**
 * Reads `<runDir>/config.json` and validates it as an experiment config
 * (its preset with its fields applied). A section saved whole (every
 * required field there, as a run writes it) is the run's as it stands: an
 * optional field it lacks stays unset, whatever the preset sets today, so a
 * field added to a preset later (`sft.pretrainLoss`) does not change an older
 * run or refuse `--from` on it. A field retired since, saved at the value
 * the code now always uses (`data.markers: false`), is read as left out
 * ({@linkcode withoutRetired}). A missing or unreadable file, one
 * that is not JSON and one whose fields are invalid are each a
 * {@linkcode DataError} naming the file.
 *
 * Source: Hugging Face `from_pretrained` (a saved directory carries the config it was trained with).
 *
 * @param runDir The run directory.
 * @returns The run's config as saved (`preset` included).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readRunConfig } from "./run_config.ts";
 *
 * const dir = await Deno.makeTempDir();
 * await assert.rejects(readRunConfig(dir), /Cannot read .*config.json: no such file/);
 * await Deno.writeTextFile(`${dir}/config.json`, JSON.stringify({ preset: "quick", rl: { lr: -1 } }));
 * await assert.rejects(readRunConfig(dir), /config.json: Invalid config: rl.lr must be > 0, current value is -1/);
 * await Deno.writeTextFile(`${dir}/config.json`, JSON.stringify({ preset: "quick", seed: 3 }));
 * assert.equal((await readRunConfig(dir)).seed, 3);
 * // a run saved before data.markers was retired, at the value the code kept
 * await Deno.writeTextFile(`${dir}/config.json`, JSON.stringify({ preset: "quick", data: { markers: false } }));
 * assert.equal("markers" in (await readRunConfig(dir)).data, false);
 * ```
 */
export async function readRunConfig(runDir: string): Promise<ExperimentConfig> {
  const path = `${runDir}/config.json`;
  const saved = await readJsonFile(path, { optional: true });
  if (saved === undefined) throw new DataError(`Cannot read ${path}: no such file (is it a run directory?)`);
  if (typeof saved !== "object" || saved === null || Array.isArray(saved)) {
    throw new DataError(`${path}: Invalid config: the config must be an object of fields`);
  }
  const { preset, ...overrides } = withoutRetired(saved) as { preset?: unknown };
  try {
    return asSaved(resolveConfig(preset as string, overrides), overrides);
  } catch (e) {
    if (e instanceof UsageError) throw new DataError(`${path}: ${e.message}`);
    throw e;
  }
}

/**
 * A config resolved onto a preset, with the optional fields that a whole
 * saved section lacks taken out again: a run's `config.json` writes every
 * field it has, so a field it lacks was unset when it ran, even if the
 * preset sets it today. A section missing a required field (a hand-written
 * partial one) keeps the preset's fields. `readRunConfig` and
 * `deno task train --resume/--from` read a run with it.
 *
 * Source: this package (a saved run is read as it ran).
 *
 * @param config The config resolved from `saved` onto its preset.
 * @param saved The fields as saved (and merged with a `--config` file).
 * @returns `config` without the optional fields its whole saved sections lack, validated.
 * @throws {UsageError} When the result is not a valid config.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { PRESETS, resolveConfig } from "./experiment.ts";
 * import { asSaved } from "./run_config.ts";
 *
 * const { pretrainLoss: _, ...sft } = PRESETS.default.sft; // a run saved before the preset set it
 * const saved = { ...PRESETS.default, sft };
 * assert.equal(resolveConfig("default", saved).sft.pretrainLoss, 1);
 * assert.equal(asSaved(resolveConfig("default", saved), saved).sft.pretrainLoss, undefined);
 * assert.equal(asSaved(resolveConfig("default", { sft: { lr: 1e-3 } }), { sft: { lr: 1e-3 } }).sft.pretrainLoss, 1);
 * ```
 */
export function asSaved(config: ExperimentConfig, saved: Record<string, unknown>): ExperimentConfig {
  const out = structuredClone(config) as unknown as Record<string, Record<string, unknown>>;
  for (const [name, schema] of SECTIONS) {
    const own = saved[name];
    if (typeof own !== "object" || own === null || Array.isArray(own)) continue;
    const fields = schema.shape as Record<string, { safeParse(x: unknown): { success: boolean } }>;
    const optional = (k: string) => fields[k]?.safeParse(undefined).success === true;
    // a partial section (hand-written) is merged into the preset; a whole one is taken as saved
    if (!Object.keys(fields).every((k) => optional(k) || k in own)) continue;
    for (const k of Object.keys(out[name]!)) if (!(k in own) && optional(k)) delete out[name]![k];
  }
  return validateConfig(out);
}
