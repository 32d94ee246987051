/**
 * An integer setting read from the process environment (`MEMPO_THREADS`,
 * `MEMPO_SFT_WORKERS`, `MEMPO_EVAL_WORKERS`): unset or empty gives the
 * fallback, anything but an integer ≥ `min` is a `UsageError` naming the
 * variable and its value. Without the permission to read the environment the
 * fallback is used.
 *
 * @module
 */
import { UsageError } from "./errors.ts";

/** Options of {@linkcode integerSetting}. */
export interface IntegerSettingOptions {
  /** The smallest value allowed. */
  min: number;
  /** The value when the variable is unset or empty. */
  fallback: number;
  /** The raw value to read instead of the environment's (tests, callers that already have it). */
  value?: string;
}

/**
 * Reads an integer setting from the environment.
 *
 * Source: this package (one reading for every `MEMPO_*` count).
 *
 * @param name The environment variable.
 * @param options Bounds, fallback, an explicit raw value.
 * @returns The setting.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { integerSetting } from "./integer_setting.ts";
 *
 * assert.equal(integerSetting("MEMPO_X", { min: 0, fallback: 3, value: "" }), 3);
 * assert.equal(integerSetting("MEMPO_X", { min: 0, fallback: 3, value: " 2 " }), 2);
 * assert.throws(() => integerSetting("MEMPO_X", { min: 1, fallback: 3, value: "0" }), /MEMPO_X must be an integer ≥ 1, current value is "0"$/);
 * ```
 */
export function integerSetting(name: string, options: IntegerSettingOptions): number {
  let raw = options.value;
  if (raw === undefined) {
    try {
      raw = Deno.env.get(name);
    } catch {
      raw = undefined; // no env permission: the fallback
    }
  }
  if (raw === undefined || raw.trim() === "") return options.fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < options.min) {
    throw new UsageError(`${name} must be an integer ≥ ${options.min}, current value is ${JSON.stringify(raw)}`);
  }
  return n;
}
