// Running the Python side of the equality tests on Debian's /usr/bin/python3 with torch (PYTHON and hasTorch of
// tests/_helpers.ts: without torch the tests print one "skipped: …" line and pass; with MEMPO_REQUIRE_TORCH=1 they fail).
import { PYTHON } from "../_helpers.ts";

/** The repository's copy of the package (the export copies it). */
export const PYTHON_ROOT = new URL("../../python/", import.meta.url).pathname;

const DRIVER = new URL("../_reference/mempo_verl_driver.py", import.meta.url).pathname;

/** One call's outcome on the Python side. */
export type PyResult = { value: unknown } | { error: string };

/** Runs the calls through tests/_reference/mempo_verl_driver.py in one Python process. */
export async function runPython(
  calls: readonly { fn: string; args: Record<string, unknown> }[],
  packageRoot = PYTHON_ROOT,
): Promise<PyResult[]> {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/calls.json`, JSON.stringify(calls));
    const out = await new Deno.Command(PYTHON, { args: [DRIVER, packageRoot, `${dir}/calls.json`] }).output();
    const stderr = new TextDecoder().decode(out.stderr);
    if (out.code !== 0) throw new Error(`mempo_verl_driver.py exited ${out.code}: ${stderr.slice(-2000)}`);
    const results = JSON.parse(new TextDecoder().decode(out.stdout)) as PyResult[];
    if (results.length !== calls.length) throw new Error(`expected ${calls.length} results, got ${results.length}`);
    return results;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** The value of a result, or a thrown error with the call's Python error. */
export function valueOf(r: PyResult | undefined, what: string): unknown {
  if (r === undefined) throw new Error(`${what}: no result`);
  if ("error" in r) throw new Error(`${what}: Python raised ${r.error}`);
  return r.value;
}
