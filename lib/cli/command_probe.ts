/**
 * Whether an installed program runs: the one probe the tasks and tests use
 * before they depend on a program outside Deno (`jupyter nbconvert`, Python
 * with torch), so a missing one is a skip or a clear error, never a spawn
 * error with a stack trace.
 *
 * @module
 */

/**
 * Runs `program args…` with its output discarded and tells whether it exited 0.
 * A program that is not installed makes `Deno.Command#output` throw when it
 * spawns (before any promise exists, so a `.catch` on the promise never sees
 * it): that, and any other failure to start, is false.
 *
 * Source: the `command -v` / `which` probes of shell scripts (a missing program is an answer, not an error).
 *
 * @param program The program (a name on PATH or a path).
 * @param args Its arguments.
 * @returns True when it ran and exited 0.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { commandSucceeds } from "./command_probe.ts";
 *
 * assert.equal(await commandSucceeds(Deno.execPath(), ["--version"]), true);
 * assert.equal(await commandSucceeds("/nonexistent/program", []), false);
 * assert.equal(await commandSucceeds(Deno.execPath(), ["eval", "Deno.exit(3)"]), false);
 * ```
 */
export async function commandSucceeds(program: string, args: readonly string[]): Promise<boolean> {
  try {
    return (await new Deno.Command(program, { args: [...args], stdout: "null", stderr: "null" }).output()).code === 0;
  } catch {
    return false;
  }
}
