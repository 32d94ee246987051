// `deno task test`: format, lint and type checks, unit + JSDoc example tests (webgpu kept out of
// that process), the backend-parity tests again with webgpu where an adapter exists, and (where
// Jupyter is installed) the notebooks. Prints one closing line
// `N passed, M failed` summed over every suite and exits non-zero on any failure.
import { runTask } from "../lib/cli/task.ts";
import { pathExists } from "../lib/path_exists.ts";
import { UsageError } from "../lib/errors.ts";

const TASK = {
  name: "deno task test",
  summary: "format, lint and type checks, the unit and JSDoc example tests, the backend-parity tests again " +
    "with webgpu, and the notebooks. Ends with one line, N passed, M failed, summed over every suite, after " +
    "the list of what was skipped here and how to install it (Jupyter, PyTorch, a Vulkan driver, Chromium). " +
    "MEMPO_REQUIRE_JUPYTER=1, MEMPO_REQUIRE_TORCH=1, MEMPO_REQUIRE_WEBGPU=1, MEMPO_REQUIRE_CHROMIUM=1 turn those " +
    "skips into failures (CI); " +
    "MEMPO_PYTHON names the Python with torch (default /usr/bin/python3).",
  flags: {
    "skip-notebooks": { type: "boolean", help: "do not run the notebooks" },
    filter: {
      type: "string",
      value: "TEXT",
      help: "run only the unit tests whose name contains TEXT (deno test --filter)",
    },
    files: {
      type: "string",
      value: "PATHS",
      help: "run only the tests in these files or folders (comma-separated), without the whole project's format, " +
        "lint and type checks or the webgpu parity run (CI runs tests/cli/ so from an empty Deno cache)",
    },
  },
} as const;

await runTask(TASK, async ({ flags: values }) => {
  const deno = Deno.execPath();
  const env = { NO_COLOR: "1", XDG_RUNTIME_DIR: Deno.env.get("XDG_RUNTIME_DIR") ?? "/tmp" };
  let passed = 0;
  let failed = 0;
  // what a suite could not run here, with how to install it (each prints `skipped: <what> (<how>)`)
  const skipped = new Set<string>();

  async function run(
    label: string,
    args: string[],
    extraEnv: Record<string, string> = {},
  ): Promise<{ code: number; signal: Deno.Signal | null; output: string }> {
    const shown = Object.entries(extraEnv).map(([k, v]) => `${k}=${v} `).join("");
    console.log(`\n=== ${label}: ${shown}deno ${args.join(" ")}`);
    const started = performance.now();
    const child = new Deno.Command(deno, { args, env: { ...env, ...extraEnv }, stdout: "piped", stderr: "piped" })
      .spawn();
    const decoder = new TextDecoder();
    let output = "";
    const pump = async (stream: ReadableStream<Uint8Array>, sink: typeof Deno.stdout) => {
      for await (const chunk of stream) {
        output += decoder.decode(chunk, { stream: true });
        await sink.write(chunk);
      }
    };
    const [status] = await Promise.all([
      child.status,
      pump(child.stdout, Deno.stdout),
      pump(child.stderr, Deno.stderr),
    ]);
    for (const m of output.matchAll(/^skipped: (.+)$/gm)) skipped.add(m[1]!.trim());
    // each part's wall time, so a slow suite shows where its minutes go
    console.log(`--- ${label}: ${((performance.now() - started) / 1000).toFixed(0)} s`);
    return { code: status.code, signal: status.signal, output };
  }

  async function check(label: string, args: string[]): Promise<void> {
    const { code } = await run(label, args);
    if (code === 0) passed += 1;
    else {
      failed += 1;
      console.log(`--- ${label} FAILED`);
    }
  }

  /** Reads `ok | 12 passed (3 steps) | 0 failed` (or FAILED | …) from deno test output. */
  function countTests(output: string): { passed: number; failed: number } | undefined {
    const m = [...output.matchAll(/(?:ok|FAILED) \| (\d+) passed(?: \(\d+ steps?\))? \| (\d+) failed/g)].at(-1);
    return m ? { passed: Number(m[1]), failed: Number(m[2]) } : undefined;
  }

  const files = values.files?.split(",").map((f) => f.trim()).filter(Boolean);
  if (files !== undefined && files.length === 0) throw new UsageError("--files must name test files or folders");
  if (files === undefined) {
    await check("format", ["fmt", "--check"]);
    await check("lint", ["lint"]);
    await check("type-check", ["check", "mod.ts", "lib/", "research/", "tests/", "tools/", "bench/"]);
  }

  /**
   * One `deno test` suite, counted from its summary line. A process that prints a complete summary
   * with no failure and then dies (a native library aborting in its exit handlers, as glibc's
   * "corrupted size vs. prev_size" once did in CI after every test had passed) is reported and run
   * once more; the second run's result counts, so a crash that repeats is a failure.
   */
  async function testSuite(label: string, args: string[], extraEnv: Record<string, string> = {}): Promise<void> {
    for (let attempt = 1;; attempt++) {
      const r = await run(attempt === 1 ? label : `${label} (second run)`, args, extraEnv);
      const counts = countTests(r.output);
      if (counts === undefined) {
        failed += 1;
        console.log(`--- ${label}: no summary line (exit code ${r.code}${r.signal ? `, ${r.signal}` : ""})`);
        return;
      }
      const diedAfterPassing = r.code !== 0 && counts.failed === 0;
      if (diedAfterPassing && attempt === 1) {
        console.log(
          `--- ${label}: all ${counts.passed} passed, then the process exited with code ${r.code}` +
            `${r.signal ? ` (${r.signal})` : ""} after its summary; running the suite once more`,
        );
        continue;
      }
      passed += counts.passed;
      failed += counts.failed + (diedAfterPassing ? 1 : 0);
      if (diedAfterPassing) console.log(`--- ${label}: the process died after its summary twice: counted as a failure`);
      return;
    }
  }

  // The GPU driver (Mesa's lavapipe in CI) runs in a process of its own: the main suite skips
  // webgpu, and the backend-parity tests run again with it.
  const filter = values.filter === undefined ? [] : ["--filter", values.filter];
  await testSuite(
    "unit and doc tests",
    ["test", "-A", "--doc", ...(files ?? ["lib/", "research/", "tests/", "mod.ts"]), ...filter],
    {
      MEMPO_SKIP_WEBGPU: "1",
    },
  );
  if (values.filter === undefined && files === undefined && Deno.env.get("MEMPO_SKIP_WEBGPU") !== "1") {
    // where the parity tests live (tests/layout_test.ts checks that none is elsewhere)
    const parity = [
      "tests/backend_test.ts",
      "tests/wasm/",
      "tests/loss/",
      "tests/tensor/",
      "tests/train/sft_test.ts",
      "tests/train/policy_update_test.ts",
      "tests/pipeline/pipeline_webgpu_test.ts",
    ];
    await testSuite("backend parity with webgpu", [
      "test",
      "-A",
      ...parity,
      "--filter",
      "/across backends|webgpu backend/",
    ]);
  }

  const notebookRunner = new URL("./notebooks.ts", import.meta.url);
  if (!values["skip-notebooks"] && await pathExists(notebookRunner)) {
    const nb = await run("notebooks", ["run", "-A", notebookRunner.pathname, "--summary"]);
    const m = [...nb.output.matchAll(/^notebooks: (\d+) passed, (\d+) failed/gm)].at(-1);
    if (m) {
      passed += Number(m[1]);
      failed += Number(m[2]);
    } else if (nb.code !== 0) failed += 1;
  }

  if (skipped.size > 0) {
    console.log(`\nskipped here (${skipped.size}):`);
    for (const s of [...skipped].sort()) console.log(`  - ${s}`);
  }
  console.log(`${passed} passed, ${failed} failed`);
  Deno.exit(failed === 0 ? 0 : 1);
});
