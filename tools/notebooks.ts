// `deno task notebooks`: type-check every notebook's code cells, then execute each notebook headless
// with nbconvert on a project-local Deno kernel (NO_COLOR). Fails on any error. `--help` lists the flags.
import { cleanNotebook, type Notebook, notebookCode } from "../lib/viz/notebook.ts";
import { runTask } from "../lib/cli/task.ts";
import { readJsonFile } from "../lib/json_file.ts";
import { commandSucceeds } from "../lib/cli/command_probe.ts";

const TASK = {
  name: "deno task notebooks",
  summary: "type-check every notebook's code cells, then execute each notebook headless with nbconvert on a " +
    "project-local Deno kernel; fails on any error. Without Jupyter it says so and skips (exit 0; " +
    "MEMPO_REQUIRE_JUPYTER=1 makes that a failure, as in CI).",
  flags: {
    write: { type: "boolean", help: "rewrite the committed notebooks with fresh outputs (cleaned metadata)" },
    summary: { type: "boolean", help: 'end with "notebooks: N passed, M failed" (read by tools/test.ts)' },
    only: { type: "string", value: "NAME", help: "run only the notebooks whose file name contains NAME" },
    dir: {
      type: "string",
      value: "DIR",
      defaultText: "notebooks/",
      help: "run the notebooks of another folder (tests)",
    },
  },
} as const;

await runTask(TASK, async ({ flags: values }) => {
  const root = new URL("../", import.meta.url).pathname;
  const dir = values.dir ?? `${root}notebooks`;
  const deno = Deno.execPath();
  let passed = 0;
  let failed = 0;
  const done = (code: number) => {
    if (values.summary) console.log(`notebooks: ${passed} passed, ${failed} failed`);
    Deno.exit(code);
  };

  if (!(await commandSucceeds("jupyter", ["nbconvert", "--version"]))) {
    console.log(
      "skipped: notebooks: Jupyter is not installed here, so the notebooks were not executed " +
        "(install: apt-get install -y --no-install-recommends jupyter-nbconvert jupyter-client python3-ipykernel)",
    );
    if (Deno.env.get("MEMPO_REQUIRE_JUPYTER") === "1") {
      console.log("MEMPO_REQUIRE_JUPYTER=1: Jupyter is required here");
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
    const nb = await readJsonFile(path, { what: "notebook" }) as Notebook;
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
      const executed = await readJsonFile(`${out}/${name}`, { what: "executed notebook" }) as Notebook;
      await Deno.writeTextFile(path, JSON.stringify(cleanNotebook(executed), null, 1) + "\n");
    }
    await Deno.remove(out, { recursive: true });
  }
  done(failed === 0 ? 0 : 1);
});
