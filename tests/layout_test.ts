// The package layout rules of docs/design.md#which-module-owns-what: each lib file has a test file at the
// mirrored path and is exported from mod.ts; lib never imports mod.ts; no Math.random.
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

Deno.test("layout: every public lib file has a mirrored test file", async () => {
  const tests = new Set(await walk(new URL("tests/", root)));
  const exempt = new Set(["tf.ts"]); // exercised by every test (backend_test checks it)
  for (const f of publicFiles) {
    if (exempt.has(f)) continue;
    const t = f.replace(/\.ts$/, "_test.ts");
    assert.ok(tests.has(t), `lib/${f} has no tests/${t}`);
  }
});

Deno.test("layout: mod.ts re-exports every public lib file and contains no logic", async () => {
  const mod = await Deno.readTextFile(new URL("mod.ts", root));
  for (const f of publicFiles) assert.ok(mod.includes(`"./lib/${f}"`), `mod.ts does not export lib/${f}`);
  const code = mod.replace(/\/\*\*[\s\S]*?\*\//g, "").split("\n").filter((l) => l.trim() && !l.trim().startsWith("//"));
  for (const line of code) {
    assert.match(line, /^(export |\s|\}|[A-Za-z_ ,]+,?$)/, `mod.ts has a non-export line: ${line}`);
  }
});

/** The names a lib file exports: its `export function|const|class|interface|type|enum NAME` and `export { a, b }` lines. */
function exportedNames(text: string): string[] {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, ""); // JSDoc examples are not the file's exports
  return [
    ...[
      ...code.matchAll(
        /^export (?:declare )?(?:async )?(?:function\*?|const|let|class|interface|type|enum) ([A-Za-z_$][\w$]*)/gm,
      ),
    ]
      .map((m) => m[1]!),
    ...[...code.matchAll(/^export (?:type )?\{([^}]*)\}(?! from)/gm)].flatMap((m) =>
      m[1]!.split(",").map((n) => n.trim().replace(/^type\s+/, "").split(/\s+as\s+/).at(-1)!).filter(Boolean)
    ),
  ];
}

/** The names mod.ts re-exports from each file: `export { a, type B } from "./lib/x.ts";`. */
function reexports(mod: string): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const m of mod.matchAll(/^export (?:type )?\{([^}]*)\} from "\.\/lib\/([^"]+)";/gm)) {
    const names = m[1]!.split(",").map((n) => n.trim().replace(/^type\s+/, "").split(/\s+as\s+/)[0]!).filter(Boolean);
    out.set(m[2]!, new Set([...(out.get(m[2]!) ?? []), ...names]));
  }
  return out;
}

Deno.test("layout: mod.ts re-exports every exported symbol of every public lib file", async () => {
  const mod = reexports(await Deno.readTextFile(new URL("mod.ts", root)));
  const missing: string[] = [];
  let checked = 0;
  for (const f of publicFiles) {
    const names = exportedNames(await Deno.readTextFile(new URL(`lib/${f}`, root)));
    for (const name of names) {
      checked += 1;
      if (!mod.get(f)?.has(name)) missing.push(`lib/${f}: ${name}`);
    }
  }
  assert.deepEqual(missing, [], `exported by lib/ but not by mod.ts:\n${missing.join("\n")}`);
  assert.ok(checked > 400, `only ${checked} exports found: is the export pattern still right?`);
});

Deno.test("layout: the export scan finds what it must", () => {
  const text = [
    "/** @example\n * ```ts\n * export const hidden = 1;\n * ```\n */",
    "export async function a() {}",
    "export const B = 1;",
    "export interface C {}",
    "export type D = number;",
    "export class E {}",
    "const f = 1;",
    "export { f, type G as H };",
  ].join("\n");
  assert.deepEqual(exportedNames(text), ["a", "B", "C", "D", "E", "f", "H"]);
  const mod = reexports('export {\n  a,\n  type C,\n} from "./lib/x.ts";\nexport { B } from "./lib/x.ts";');
  assert.deepEqual([...mod.get("x.ts")!], ["a", "C", "B"]);
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
 * it. The package's root files (`tf.ts`, `random.ts`) sit with `backend/` at the bottom (`tf.ts`
 * registers the backend's kernels when it loads it).
 */
const LAYERS: readonly (readonly string[])[] = [
  ["cli"], // the tasks' command line: flags, --help, one error path
  ["view"], // deno task view: the runs' pages, curves and episode browser over HTTP
  ["release"], // the released SFT policy: its folder, manifest and hashes; a run started from it
  ["pipeline"], // deno task train: stages, resume, branching runs
  ["export"], // deno task export-verl / serve-search: the run as a verl experiment (data, HF model, overrides, search server)
  ["diagnostics"], // probes of where a policy goes wrong (teacher-forced)
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
  ["backend", "."], // TF.js, its backends and wasm kernels; seeded randomness; errors, atomic writes, fault points
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
