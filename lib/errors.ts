/**
 * The two expected failures of the package's tasks, told apart from bugs:
 * a {@linkcode UsageError} (the command, a flag or a config value is wrong:
 * exit code 2) and a {@linkcode DataError} (a file, directory or installed
 * component is missing, damaged or does not fit: exit code 1). The CLI
 * (`lib/cli/task.ts`) prints their message alone; any other error is
 * unexpected and keeps its stack trace.
 *
 * @module
 */

/**
 * A wrong command, flag or config value (exit code 2). A `RangeError`, as the
 * package's other bad-argument errors are.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { UsageError } from "./errors.ts";
 *
 * const e = new UsageError("Invalid config: rl.lr must be > 0, current value is -1");
 * assert.ok(e instanceof RangeError);
 * assert.equal(e.exitCode, 2);
 * ```
 */
export class UsageError extends RangeError {
  /** The process exit code of a task that ends with this error. */
  readonly exitCode = 2;
  /**
   * @param message What is wrong, naming the flag or field and its value.
   * @param options The error's cause, if any.
   */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "UsageError";
  }
}

/**
 * A missing, damaged or incompatible file, directory or installed component,
 * or a refused resume (exit code 1).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DataError } from "./errors.ts";
 *
 * assert.equal(new DataError("Cannot load data from data/quick: no manifest.json").exitCode, 1);
 * ```
 */
export class DataError extends Error {
  /** The process exit code of a task that ends with this error. */
  readonly exitCode = 1;
  /**
   * @param message What is wrong, naming the file and what was found.
   * @param options The error's cause, if any.
   */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "DataError";
  }
}
