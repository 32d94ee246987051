// `deno task notebooks`: type-check every notebook's code cells, then execute each notebook headless
// with nbconvert on a project-local Deno kernel (NO_COLOR). Fails on any error.
//   --write      rewrite the committed notebooks with fresh outputs (cleaned metadata)
//   --summary    end with "notebooks: N passed, M failed" (read by tools/test.ts)
//   --only NAME  run notebooks whose file name contains NAME
//   --dir DIR    run the notebooks of another folder (tests)
import { parseArgs } from "node:util";
import { cleanNotebook, type Notebook, notebookCode } from "../lib/viz/notebook.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    write: { type: "boolean", default: false },
    summary: { type: "boolean", default: false },
    only: { type: "string" },
    dir: { type: "string" },
  },
});
const root = new URL("../", import.meta.url).pathname;
const dir = values.dir ?? `${root}notebooks`;
const deno = Deno.execPath();
let passed = 0;
let failed = 0;
const done = (code: number) => {
  if (values.summary) console.log(`notebooks: ${passed} passed, ${failed} failed`);
  Deno.exit(code);
};

const probe = await new Deno.Command("jupyter", { args: ["nbconvert", "--version"], stdout: "null", stderr: "null" })
  .output()
  .catch(() => ({ code: 127 }));
if (probe.code !== 0) {
  console.log("notebooks: Jupyter is not installed here, so the notebooks were not executed.");
  console.log(
    "  install it with: apt-get install -y --no-install-recommends jupyter-nbconvert jupyter-client python3-ipykernel",
  );
  if (Deno.env.get("MEMPO_REQUIRE_JUPYTER") === "1") {
    failed += 1;
    done(1);
  }
  done(0);
}

// a project-local kernelspec: this Deno, NO_COLOR, found through JUPYTER_PATH
const jupyterPath = `${root}.jupyter`;
await Deno.mkdir(`${jupyterPath}/kernels/mempo-deno`, { recursive: true });
await Deno.writeTextFile(
  `${jupyterPath}/kernels/mempo-deno/kernel.json`,
  JSON.stringify(
    {
      argv: [deno, "jupyter", "--kernel", "--conn", "{connection_file}"],
      display_name: "Deno (mempo-lab)",
      language: "typescript",
      env: { NO_COLOR: "1", XDG_RUNTIME_DIR: Deno.env.get("XDG_RUNTIME_DIR") ?? "/tmp" },
    },
    null,
    2,
  ),
);

const files = [...Deno.readDirSync(dir)].map((e) => e.name).filter((n) =>
  n.endsWith(".ipynb") && (!values.only || n.includes(values.only))
)
  .sort();
for (const name of files) {
  const path = `${dir}/${name}`;
  const nb = JSON.parse(await Deno.readTextFile(path)) as Notebook;
  // 1. type-check the code cells as one module beside the notebook (the kernel does not type-check)
  const check = `${dir}/.nbcheck_${name.replace(/\.ipynb$/, "")}.ts`;
  await Deno.writeTextFile(check, notebookCode(nb));
  const typed = await new Deno.Command(deno, {
    args: ["check", check],
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  await Deno.remove(check);
  if (typed.code !== 0) {
    failed += 1;
    console.log(`FAILED ${name}: type-check\n${new TextDecoder().decode(typed.stderr)}`);
    continue;
  }
  // 2. execute headless
  const out = await Deno.makeTempDir();
  const t0 = performance.now();
  const run = await new Deno.Command("jupyter", {
    args: [
      "nbconvert",
      "--to",
      "notebook",
      "--execute",
      "--ExecutePreprocessor.kernel_name=mempo-deno",
      "--ExecutePreprocessor.timeout=600",
      `--output-dir=${out}`,
      path,
    ],
    env: { JUPYTER_PATH: jupyterPath, NO_COLOR: "1" },
    cwd: dir,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const seconds = ((performance.now() - t0) / 1000).toFixed(1);
  if (run.code !== 0) {
    failed += 1;
    const err = new TextDecoder().decode(run.stderr).split("\n").slice(-25).join("\n");
    console.log(`FAILED ${name} (${seconds} s)\n${err}`);
    continue;
  }
  passed += 1;
  console.log(`ok ${name} (${seconds} s)`);
  if (values.write) {
    const executed = JSON.parse(await Deno.readTextFile(`${out}/${name}`)) as Notebook;
    await Deno.writeTextFile(path, JSON.stringify(cleanNotebook(executed), null, 1) + "\n");
  }
  await Deno.remove(out, { recursive: true });
}
done(failed === 0 ? 0 : 1);
