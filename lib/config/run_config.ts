/**
 * A run directory's `config.json`, read back and checked: what `deno task
 * eval`, `--resume`, `--from` and the probes start from.
 *
 * @module
 */
import { type ExperimentConfig, resolveConfig } from "./experiment.ts";
import { DataError, UsageError } from "../errors.ts";

/**
 * Reads `<runDir>/config.json` and validates it as an experiment config
 * (its preset with its fields applied). A missing or unreadable file, one
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
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (e) {
    const why = e instanceof Deno.errors.NotFound ? "no such file (is it a run directory?)" : (e as Error).message;
    throw new DataError(`Cannot read ${path}: ${why}`);
  }
  let saved: unknown;
  try {
    saved = JSON.parse(text);
  } catch (e) {
    throw new DataError(`Cannot read ${path}: it is not valid JSON (${(e as Error).message})`);
  }
  if (typeof saved !== "object" || saved === null || Array.isArray(saved)) {
    throw new DataError(`${path}: Invalid config: the config must be an object of fields`);
  }
  const { preset, ...overrides } = saved as { preset?: unknown };
  try {
    return resolveConfig(preset as string, overrides);
  } catch (e) {
    if (e instanceof UsageError) throw new DataError(`${path}: ${e.message}`);
    throw e;
  }
}
