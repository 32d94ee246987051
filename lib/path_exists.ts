/**
 * Whether a path exists, for the checks that decide between a new file and
 * an old one (a run's directory, a stored evaluation).
 *
 * @module
 */

/**
 * Whether `path` exists (a file, a directory or a link to one). An error
 * other than "not found" (no permission, say) counts as absent, as a failed
 * `stat` does in a shell test.
 *
 * Source: Deno std `fs/exists` (the same answer, without the dependency: JSR is unreachable here).
 *
 * @param path The path (a string or a `file:` URL).
 * @returns Whether `Deno.stat` finds it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { pathExists } from "./path_exists.ts";
 *
 * const dir = await Deno.makeTempDir();
 * assert.equal(await pathExists(dir), true);
 * assert.equal(await pathExists(`${dir}/nothing`), false);
 * ```
 */
export async function pathExists(path: string | URL): Promise<boolean> {
  return await Deno.stat(path).then(() => true, () => false);
}
