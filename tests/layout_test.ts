// The package layout rules of docs/design.md#which-module-owns-what: each lib and research file has a test file at the
// mirrored path; mod.ts re-exports from lib/ only and holds no logic; lib never imports mod.ts; no Math.random; the
// core (lib/, tools/, bench/, mod.ts, the notebooks) never imports the research instruments (research/); no import
// circle; imports run down the layers of lib/.
import assert from "node:assert/strict";

const root = new URL("../", import.meta.url);

async function walk(dir: URL, prefix = ""): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(dir)) {
    const rel = prefix + e.name;
    if (e.isDirectory) out.push(...await walk(new URL(e.name + "/", dir), rel + "/"));
    else if (e.name.endsWith(".ts")) out.push(rel);
  }
  return out.sort();
}

const libFiles = await walk(new URL("lib/", root));
const publicFiles = libFiles.filter((f) => !f.split("/").at(-1)!.startsWith("_"));
const researchFiles = await walk(new URL("research/", root));

Deno.test("layout: every public lib file has a mirrored test file, and every research file one under tests/research/", async () => {
  const tests = new Set(await walk(new URL("tests/", root)));
  const exempt = new Set(["tf.ts"]); // exercised by every test (backend_test checks it)
  for (const f of publicFiles) {
    if (exempt.has(f)) continue;
    const t = f.replace(/\.ts$/, "_test.ts");
    assert.ok(tests.has(t), `lib/${f} has no tests/${t}`);
  }
  // the instruments: a module has its test; a command line (a file with no export) is run by a test of its own
  for (const f of researchFiles) {
    const t = `research/${f.replace(/\.ts$/, "_test.ts")}`;
    const text = await Deno.readTextFile(new URL(`research/${f}`, root));
    if (/^export /m.test(text)) assert.ok(tests.has(t), `research/${f} has no tests/${t}`);
    else {
      const runs = await Promise.all(
        [...tests].filter((x) => x.startsWith("research/") || x.startsWith("cli/")).map(
          (x) => Deno.readTextFile(new URL(`tests/${x}`, root)),
        ),
      );
      assert.ok(runs.some((x) => x.includes(`research/${f}`)), `no test runs research/${f}`);
    }
  }
});

Deno.test("layout: mod.ts re-exports from lib/ only and contains no logic", async () => {
  const mod = await Deno.readTextFile(new URL("mod.ts", root));
  const sources = [...mod.matchAll(/ from "([^"]+)";/g)].map((m) => m[1]!);
  assert.ok(sources.length >= 20, `only ${sources.length} re-exports in mod.ts`);
  for (const s of sources) assert.match(s, /^\.\/lib\/[\w/]+\.ts$/, `mod.ts re-exports ${s}`);
  for (const s of sources) assert.ok(!s.split("/").at(-1)!.startsWith("_"), `mod.ts re-exports the internal ${s}`);
  const code = mod.replace(/\/\*\*[\s\S]*?\*\//g, "").split("\n").filter((l) => l.trim() && !l.trim().startsWith("//"));
  for (const line of code) {
    assert.match(line, /^(export |\s|\}|[A-Za-z_ ,]+,?$)/, `mod.ts has a non-export line: ${line}`);
  }
});

Deno.test("layout: lib never imports mod.ts, never calls Math.random, has no utils/index files", async () => {
  for (const f of libFiles) {
    const text = await Deno.readTextFile(new URL(`lib/${f}`, root));
    assert.ok(!/from "(\.\.\/)+mod\.ts"/.test(text), `lib/${f} imports mod.ts`);
    assert.ok(!/Math\.random\(/.test(text.replace(/\/\/.*$|\*.*$/gm, "")), `lib/${f} calls Math.random`);
    assert.ok(!/(^|\/)(index|utils|helpers|common)\.ts$/.test(f), `lib/${f}: forbidden file name`);
    if (f !== "tf.ts") {
      assert.ok(!/^import (?!type )[^;]*from "@tensorflow\/tfjs";/m.test(text), `lib/${f} imports tfjs directly`);
    }
  }
});

Deno.test("layout: every webgpu parity test is where `deno task test` reruns it with webgpu", async () => {
  // tools/test.ts keeps webgpu out of the main suite and reruns, with it, the tests named
  // "across backends" in its `parity` paths: a parity test elsewhere would never meet the GPU.
  const runner = await Deno.readTextFile(new URL("tools/test.ts", root));
  const list = runner.match(/const parity = \[([^\]]*)\]/)?.[1];
  assert.ok(list, "tools/test.ts lists its parity paths");
  const paths = [...list.matchAll(/"tests\/([^"]+)"/g)].map((m) => m[1]!);
  assert.ok(paths.length >= 3, `parity paths: ${paths}`);
  let found = 0;
  for (const f of await walk(new URL("tests/", root))) {
    if (f === "layout_test.ts") continue;
    const text = await Deno.readTextFile(new URL(`tests/${f}`, root));
    for (const m of text.matchAll(/Deno\.test\((?:\{\s*name: )?"([^"]+)"[\s\S]*?(?=Deno\.test\(|$)/g)) {
      if (!m[0].includes("parityBackends()")) continue;
      found += 1;
      assert.ok(paths.some((p) => f.startsWith(p)), `tests/${f}: "${m[1]}" is not under a parity path (${paths})`);
      assert.match(
        m[1]!,
        /across backends/,
        `tests/${f}: "${m[1]}" compares backends but is not named "across backends"`,
      );
    }
  }
  assert.ok(found >= 12, `only ${found} parity tests found`);
});

/**
 * The layers of lib/, top to bottom: a file imports only from its own folder or a folder below
 * it. The package's root files (`tf.ts`, `random.ts`) sit with `wasm/` at the bottom (`tf.ts`
 * registers the backend's kernels when it loads it).
 */
const LAYERS: readonly (readonly string[])[] = [
  ["cli"], // the tasks' command line: flags, --help, one error path
  ["view"], // deno task view: the runs' pages, curves and episode browser over HTTP
  ["release"], // the released SFT policy: its folder, manifest and hashes; a run started from it
  ["pipeline"], // deno task train: stages, resume, branching runs
  ["export"], // deno task export-verl / serve-search: the run as a verl experiment (data, HF model, overrides, search server)
  ["eval"], // evaluation of agents on the test sets, the research check
  ["train"], // SFT and RL trainers, the shared policy update, their batches
  ["config"], // the experiment's hyperparameters, presets, validation
  ["episodes"], // the episode records a run keeps (episodes/*.jsonl) and where they leave the teacher's path
  ["data"], // datasets (Parquet), generated worlds and test sets
  ["env"], // world, questions, search, agent loop, reward, teacher
  ["model"], // the decoder, sampling, scoring, checkpoints
  ["optim"], // AdamW and learning-rate schedules
  ["advantage", "loss"], // the lesson math: estimators on arrays, losses on tensors
  ["tensor", "text", "viz"], // masked reductions and log-probs; the tokenizer; displayables
  ["testing"], // assertAllClose (JSDoc examples and tests)
  ["wasm", "."], // TF.js and the backend switch (root files), the wasm kernels and threads; seeded randomness; errors, atomic writes, fault points
];

function layerOf(folder: string): number {
  const i = LAYERS.findIndex((l) => l.includes(folder));
  assert.ok(i >= 0, `lib/${folder}/ is in no layer of tests/layout_test.ts`);
  return i;
}

Deno.test("layout: every lib folder has its layer, and no import runs back up the layers", async () => {
  const folders = new Set(libFiles.map((f) => (f.includes("/") ? f.split("/")[0]! : ".")));
  for (const folder of folders) layerOf(folder);
  const arrows: string[] = [];
  for (const f of libFiles) {
    const from = f.includes("/") ? f.split("/")[0]! : ".";
    const text = await Deno.readTextFile(new URL(`lib/${f}`, root));
    // real imports only (JSDoc examples are comment lines starting with " *")
    for (const m of text.matchAll(/^(?:import|export)[^;]*? from "(\.{1,2}\/[^"]+)";/gm)) {
      const target = new URL(m[1]!, new URL(`lib/${f}`, root)).pathname.split("/lib/")[1]!;
      const to = target.includes("/") ? target.split("/")[0]! : ".";
      if (to === from) continue;
      if (from === "." && to === "backend") continue; // tf.ts loads the backend it exports
      if (layerOf(to) < layerOf(from)) arrows.push(`lib/${f} → lib/${target}`);
    }
  }
  assert.deepEqual(arrows, [], `imports that run up the layers:\n${arrows.join("\n")}`);
});

/** The files of the core, relative to the root: lib/, tools/, bench/ and mod.ts (the notebooks are read apart). */
async function coreFiles(): Promise<string[]> {
  const out = ["mod.ts"];
  for (const dir of ["lib", "tools", "bench"]) {
    out.push(...(await walk(new URL(`${dir}/`, root))).map((f) => `${dir}/${f}`));
  }
  return out;
}

/** A file's relative imports (`import`/`export … from`, and `import("…")`), as paths from the root; JSDoc examples are not imports. */
function importsOf(file: string, text: string): { to: string; typeOnly: boolean }[] {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, "");
  const dir = new URL(file, root);
  const rel = (spec: string) => new URL(spec, dir).pathname.slice(new URL(root).pathname.length);
  return [
    ...[...code.matchAll(/^(?:import|export)(\s+type)?[^;]*? from "(\.{1,2}\/[^"]+)";/gm)].map((m) => ({
      to: rel(m[2]!),
      typeOnly: m[1] !== undefined,
    })),
    ...[...code.matchAll(/\bimport\(\s*"(\.{1,2}\/[^"]+)"\s*\)/g)].map((m) => ({ to: rel(m[1]!), typeOnly: false })),
  ];
}

Deno.test("layout: nothing in the core imports the research instruments (lib/, tools/, bench/, mod.ts, notebooks)", async () => {
  const arrows: string[] = [];
  for (const f of await coreFiles()) {
    for (const { to } of importsOf(f, await Deno.readTextFile(new URL(f, root)))) {
      if (to.startsWith("research/")) arrows.push(`${f} → ${to}`);
      // one way: tools/, bench/ and mod.ts stand on lib/, which stands on nothing of theirs (nor of the tests)
      else if (f.startsWith("lib/") && !to.startsWith("lib/")) arrows.push(`${f} → ${to} (lib/ imports lib/ only)`);
    }
  }
  for await (const e of Deno.readDir(new URL("notebooks/", root))) {
    if (!e.name.endsWith(".ipynb")) continue;
    const nb = JSON.parse(await Deno.readTextFile(new URL(`notebooks/${e.name}`, root)));
    const code = (nb.cells as { cell_type: string; source: string[] }[]).filter((c) => c.cell_type === "code")
      .map((c) => c.source.join("")).join("\n");
    for (const m of code.matchAll(/from "([^"]+)"/g)) {
      if (m[1] !== "../mod.ts") arrows.push(`notebooks/${e.name} → ${m[1]} (a notebook imports ../mod.ts only)`);
    }
  }
  // the tests of the core do not lean on them either: only tests/research/ imports research/
  for (const f of await walk(new URL("tests/", root))) {
    if (f.startsWith("research/") || f === "layout_test.ts") continue;
    for (const { to } of importsOf(`tests/${f}`, await Deno.readTextFile(new URL(`tests/${f}`, root)))) {
      if (to.startsWith("research/")) arrows.push(`tests/${f} → ${to}`);
    }
  }
  assert.deepEqual(arrows, [], `the core imports research/:\n${arrows.join("\n")}`);
});

/** The import circles among `files` (strongly connected sets of more than one file, or a file importing itself). */
function circles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const out: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const set: string[] = [];
      for (let w = stack.pop()!;; w = stack.pop()!) {
        set.push(w);
        if (w === v) break;
      }
      if (set.length > 1 || (graph.get(v) ?? []).includes(v)) out.push(set.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return out;
}

Deno.test("layout: no import circle among lib/, research/, tools/, bench/ and mod.ts", async () => {
  // type-only imports are erased before a module runs: a circle through one alone orders no evaluation
  const graph = new Map<string, string[]>();
  const files = [...await coreFiles(), ...researchFiles.map((f) => `research/${f}`)];
  for (const f of files) {
    const text = await Deno.readTextFile(new URL(f, root));
    graph.set(f, importsOf(f, text).filter((i) => !i.typeOnly).map((i) => i.to));
  }
  assert.ok([...graph.values()].flat().length > 300, "the import scan finds the imports");
  assert.deepEqual(circles(graph), [], "import circles");
});

Deno.test("layout: the circle and import scans find what they must", () => {
  const g = new Map([["a", ["b"]], ["b", ["c"]], ["c", ["a"]], ["d", ["a", "d"]], ["e", []]]);
  assert.deepEqual(circles(g), [["a", "b", "c"], ["d"]]);
  const text = [
    '/** @example\n * ```ts\n * import { x } from "../research/x.ts";\n * ```\n */',
    'import { a } from "./a.ts";',
    'import type { B } from "../b/b.ts";',
    'export { c } from "../research/c.ts";',
    'const d = await import("./d.ts");',
  ].join("\n");
  assert.deepEqual(importsOf("src/x/y.ts", text), [
    { to: "src/x/a.ts", typeOnly: false },
    { to: "src/b/b.ts", typeOnly: true },
    { to: "src/research/c.ts", typeOnly: false },
    { to: "src/x/d.ts", typeOnly: false },
  ]);
});
