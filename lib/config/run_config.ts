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
 * Reads `<runDir>/config.json` and validates it as an experiment config
 * (its preset with its fields applied). A section saved whole (every
 * required field there, as a run writes it) is the run's as it stands: an
 * optional field it lacks stays unset, whatever the preset sets today, so a
 * field added to a preset later (`sft.pretrainLoss`) does not change an older
 * run or refuse `--from` on it. A missing or unreadable file, one
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
 * ```
 */
export async function readRunConfig(runDir: string): Promise<ExperimentConfig> {
  const path = `${runDir}/config.json`;
  const saved = await readJsonFile(path, { optional: true });
  if (saved === undefined) throw new DataError(`Cannot read ${path}: no such file (is it a run directory?)`);
  if (typeof saved !== "object" || saved === null || Array.isArray(saved)) {
    throw new DataError(`${path}: Invalid config: the config must be an object of fields`);
  }
  const { preset, ...overrides } = saved as { preset?: unknown };
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
