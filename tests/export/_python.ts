// Running the Python side of the equality tests: Debian's /usr/bin/python3 with torch. Without torch the
// tests print one "skipped: …" line and pass (a fresh machine); with MEMPO_REQUIRE_TORCH=1 (.ci/run) they fail.

/** The Python with torch the tests use (`MEMPO_PYTHON` overrides it, e.g. to check the skip path). */
export const PYTHON = Deno.env.get("MEMPO_PYTHON") ?? "/usr/bin/python3";

/** The repository's copy of the package (the export copies it). */
export const PYTHON_ROOT = new URL("../../python/", import.meta.url).pathname;

const DRIVER = new URL("../_reference/mempo_verl_driver.py", import.meta.url).pathname;

let probe: Promise<boolean> | undefined;

/**
 * Whether `/usr/bin/python3` imports torch. When it does not: prints the skip line and returns false, or
 * throws when `MEMPO_REQUIRE_TORCH=1` (CI installs python3-torch, so a missing torch there is a failure).
 */
export async function hasTorch(what: string): Promise<boolean> {
  probe ??= (async () => {
    try {
      const o = await new Deno.Command(PYTHON, { args: ["-c", "import torch"], stdout: "null", stderr: "null" })
        .output();
      return o.code === 0;
    } catch { // no such interpreter
      return false;
    }
  })();
  if (await probe) return true;
  const line =
    `skipped: ${what}: ${PYTHON} has no torch (install with apt-get install python3-torch libopenblas0-pthread)`;
  if (Deno.env.get("MEMPO_REQUIRE_TORCH") === "1") throw new Error(`MEMPO_REQUIRE_TORCH=1 but ${line}`);
  console.log(line);
  return false;
}

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
