// `deno task test`: format, lint and type checks, unit + JSDoc example tests, and
// (where Jupyter is installed) the notebooks. Prints one closing line
// `N passed, M failed` summed over every suite and exits non-zero on any failure.
import { parseArgs } from "node:util";

const { values } = parseArgs({
  args: Deno.args,
  options: { "skip-notebooks": { type: "boolean", default: false }, filter: { type: "string" } },
});

const deno = Deno.execPath();
const env = { NO_COLOR: "1", XDG_RUNTIME_DIR: Deno.env.get("XDG_RUNTIME_DIR") ?? "/tmp" };
let passed = 0;
let failed = 0;

async function run(label: string, args: string[]): Promise<{ code: number; output: string }> {
  console.log(`\n=== ${label}: deno ${args.join(" ")}`);
  const child = new Deno.Command(deno, { args, env, stdout: "piped", stderr: "piped" }).spawn();
  const decoder = new TextDecoder();
  let output = "";
  const pump = async (stream: ReadableStream<Uint8Array>, sink: typeof Deno.stdout) => {
    for await (const chunk of stream) {
      output += decoder.decode(chunk, { stream: true });
      await sink.write(chunk);
    }
  };
  const [status] = await Promise.all([child.status, pump(child.stdout, Deno.stdout), pump(child.stderr, Deno.stderr)]);
  return { code: status.code, output };
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

await check("format", ["fmt", "--check"]);
await check("lint", ["lint"]);
await check("type-check", ["check", "mod.ts", "lib/", "tests/", "tools/", "bench/"]);

const testArgs = ["test", "-A", "--doc", "lib/", "tests/", "mod.ts"];
if (values.filter) testArgs.push("--filter", values.filter);
const unit = await run("unit and doc tests", testArgs);
const counts = countTests(unit.output);
if (counts === undefined) {
  failed += 1;
  console.log("--- unit tests produced no summary line");
} else {
  passed += counts.passed;
  failed += counts.failed;
  if (unit.code !== 0 && counts.failed === 0) failed += 1;
}

const notebookRunner = new URL("./notebooks.ts", import.meta.url);
if (!values["skip-notebooks"] && await Deno.stat(notebookRunner).then(() => true, () => false)) {
  const nb = await run("notebooks", ["run", "-A", notebookRunner.pathname, "--summary"]);
  const m = [...nb.output.matchAll(/^notebooks: (\d+) passed, (\d+) failed/gm)].at(-1);
  if (m) {
    passed += Number(m[1]);
    failed += Number(m[2]);
  } else if (nb.code !== 0) failed += 1;
}

console.log(`${passed} passed, ${failed} failed`);
Deno.exit(failed === 0 ? 0 : 1);
