/**
 * Whole-file writes that a kill cannot tear: the bytes go to a hidden
 * temporary file beside the target, which is synced and then renamed over
 * it, so a reader (or the next run) finds the old file or the new one, never
 * a mix or a prefix.
 *
 * @module
 */
import { faultPoint } from "./fault_point.ts";

/** The temporary name {@linkcode writeFileAtomic} writes before its rename: hidden, beside `path`, per process. */
function atomicTempPath(path: string): string {
  const slash = path.lastIndexOf("/");
  return `${path.slice(0, slash + 1)}.${path.slice(slash + 1)}.tmp-${Deno.pid}`;
}

/**
 * Replaces `path` with `data` atomically: write a temporary file in the same
 * directory, sync it to disk, rename it over `path` (POSIX `rename(2)` is
 * atomic within one file system).
 *
 * Source: POSIX `rename(2)`; the write-temp-then-rename idiom of Git's lock files and of `safetensors` savers.
 *
 * @param path The file to write (its directory must exist).
 * @param data The new contents (text is written as UTF-8).
 * @param fault A {@linkcode faultPoint} to mark between the temporary file's sync and the rename (interrupt tests).
 * @returns Nothing, once `path` holds `data`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { writeFileAtomic } from "./atomic_file.ts";
 *
 * const dir = await Deno.makeTempDir();
 * await writeFileAtomic(`${dir}/a.json`, "{}");
 * await writeFileAtomic(`${dir}/a.json`, '{"b":1}');
 * assert.equal(await Deno.readTextFile(`${dir}/a.json`), '{"b":1}');
 * assert.deepEqual([...Deno.readDirSync(dir)].map((e) => e.name), ["a.json"]); // no temporary left
 * ```
 */
export async function writeFileAtomic(path: string, data: Uint8Array | string, fault?: string): Promise<void> {
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  const tmp = atomicTempPath(path);
  const file = await Deno.open(tmp, { write: true, create: true, truncate: true });
  try {
    for (let written = 0; written < bytes.length;) written += await file.write(bytes.subarray(written));
    await file.syncData();
  } finally {
    file.close();
  }
  if (fault !== undefined) faultPoint(fault);
  await Deno.rename(tmp, path);
}
