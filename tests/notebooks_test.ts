// The notebook runner fails on a broken cell and on a type error, and passes a good notebook.
// (tools/test.ts runs the nine lesson notebooks themselves as its own suite.)
import assert from "node:assert/strict";
import { commandSucceeds } from "../lib/cli/command_probe.ts";
import { taskStderr } from "./_subprocess.ts";

const hasJupyter = await commandSucceeds("jupyter", ["nbconvert", "--version"]);
const runner = new URL("../tools/notebooks.ts", import.meta.url).pathname;
const mod = "../../mod.ts"; // from .jupyter/probe-*/

function notebook(code: string[]): string {
  return JSON.stringify({
    cells: code.map((source) => ({ cell_type: "code", execution_count: null, metadata: {}, outputs: [], source })),
    metadata: { kernelspec: { display_name: "Deno", language: "typescript", name: "deno" } },
    nbformat: 4,
    nbformat_minor: 5,
  });
}

async function run(code: string[]): Promise<{ code: number; out: string }> {
  // inside the repository, so the kernel and `deno check` find deno.json by walking up
  const parent = new URL("../.jupyter/", import.meta.url).pathname;
  await Deno.mkdir(parent, { recursive: true });
  const dir = await Deno.makeTempDir({ dir: parent, prefix: "probe-" });
  await Deno.writeTextFile(`${dir}/01_probe.ipynb`, notebook(code));
  const r = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", runner, "--dir", dir, "--summary"],
    env: { NO_COLOR: "1" },
  })
    .output();
  await Deno.remove(dir, { recursive: true });
  return { code: r.code, out: new TextDecoder().decode(r.stdout) + new TextDecoder().decode(r.stderr) };
}

if (!hasJupyter && Deno.env.get("MEMPO_REQUIRE_JUPYTER") !== "1") {
  console.log(
    "skipped: notebook runner test: Jupyter is not installed here (install: apt-get install jupyter-nbconvert)",
  );
}

Deno.test({
  name: "deno task notebooks: a good notebook passes, a throwing cell and a type error fail",
  ignore: !hasJupyter && Deno.env.get("MEMPO_REQUIRE_JUPYTER") !== "1",
  fn: async () => {
    const good = await run([
      `import { grpoAdvantages } from "${mod}";`,
      "await Deno.jupyter.display({ 'text/plain': String(grpoAdvantages([1, 0], [0, 0])) }, { raw: true });",
    ]);
    assert.equal(good.code, 0, good.out);
    assert.match(good.out, /notebooks: 1 passed, 0 failed/);
    const broken = await run(["const x = 1;", "throw new Error('deliberately broken cell');"]);
    assert.notEqual(broken.code, 0);
    assert.match(broken.out, /FAILED 01_probe.ipynb[\s\S]*notebooks: 0 passed, 1 failed/);
    const mistyped = await run(["const x: number = 'not a number';"]);
    assert.notEqual(mistyped.code, 0);
    assert.match(mistyped.out, /FAILED 01_probe.ipynb: type-check/);
  },
});

Deno.test("deno task notebooks without Jupyter: says what it skipped and how to install it; fails only where it is required", async () => {
  // jupyter absent from PATH (deno itself runs by its absolute path)
  const run = async (env: Record<string, string>) => {
    const r = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", runner, "--summary"],
      env: { NO_COLOR: "1", PATH: "/nonexistent", ...env },
    }).output();
    return { code: r.code, out: new TextDecoder().decode(r.stdout), err: taskStderr(r.stderr) };
  };
  const free = await run({ MEMPO_REQUIRE_JUPYTER: "0" });
  assert.equal(free.code, 0, free.err);
  assert.match(
    free.out,
    /^skipped: notebooks: Jupyter is not installed here.*\(install: apt-get install .*jupyter-nbconvert/m,
  );
  assert.match(free.out, /^notebooks: 0 passed, 0 failed$/m);
  const required = await run({ MEMPO_REQUIRE_JUPYTER: "1" });
  assert.equal(required.code, 1);
  assert.match(required.out, /^notebooks: 0 passed, 1 failed$/m);
  assert.equal(free.err + required.err, "", "no stack trace");
});
