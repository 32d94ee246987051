// What a reader of the repository is shown must exist in it: every relative link and every repository path in
// README.md, docs/ and the notebooks' markdown cells resolves; nothing points outside the repository (the seed
// notes, the design files and folder, a machine's own paths); and the code, tests, tools, bench, python and
// notebooks cite no outside file and no repository path or heading that does not exist (`runs/…` and `data/…`,
// which tasks write, are not checked). The README starts with the two commands, stays at most 200 lines, keeps its
// results between the markers the lead refreshes, and shows the tour that tests/readme_tour_test.ts runs.
import assert from "node:assert/strict";
import { dirname, join } from "node:path";

const root = new URL("../", import.meta.url).pathname;

/** A markdown text, where it comes from (for messages) and the folder its relative links start from. */
interface Doc {
  name: string;
  dir: string;
  text: string;
}

function walk(dir: string, keep: (name: string) => boolean): string[] {
  const out: string[] = [];
  for (const e of Deno.readDirSync(join(root, dir))) {
    const rel = join(dir, e.name);
    if (e.isDirectory) out.push(...walk(rel, keep));
    else if (keep(e.name)) out.push(rel);
  }
  return out.sort();
}

/** README.md, every markdown file under docs/, and the markdown cells of every notebook. */
function docs(): Doc[] {
  const out: Doc[] = [{ name: "README.md", dir: "", text: Deno.readTextFileSync(join(root, "README.md")) }];
  for (const f of walk("docs", (n) => n.endsWith(".md"))) {
    out.push({ name: f, dir: dirname(f), text: Deno.readTextFileSync(join(root, f)) });
  }
  for (const f of walk("notebooks", (n) => n.endsWith(".ipynb"))) {
    const nb = JSON.parse(Deno.readTextFileSync(join(root, f))) as {
      cells: { cell_type: string; source: string | string[] }[];
    };
    nb.cells.forEach((c, i) => {
      if (c.cell_type !== "markdown") return;
      const text = Array.isArray(c.source) ? c.source.join("") : c.source;
      out.push({ name: `${f} (markdown cell ${i})`, dir: "notebooks", text });
    });
  }
  return out;
}

function exists(path: string): boolean {
  try {
    Deno.statSync(join(root, path));
    return true;
  } catch {
    return false;
  }
}

/** Repository paths matching `pattern` (`*` within one path segment), relative to the root. */
function glob(pattern: string): string[] {
  const parts = pattern.replace(/\/$/, "").split("/");
  let found = [""];
  for (const part of parts) {
    const re = new RegExp(`^${part.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replaceAll("*", "[^/]*")}$`);
    found = found.flatMap((dir) => {
      try {
        return [...Deno.readDirSync(join(root, dir))].filter((e) => re.test(e.name)).map((e) => join(dir, e.name));
      } catch {
        return [];
      }
    });
  }
  return found;
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
function slug(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, "").replace(/\s/g, "-");
}

function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of markdown.replace(/^```[\s\S]*?^```/gm, "").matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm)) {
    const base = slug(m[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** Targets of inline links and images, `[text](target)`, and of reference definitions, `[id]: target`. */
function linkTargets(text: string): string[] {
  const prose = text.replace(/^```[\s\S]*?^```/gm, "").replace(/`[^`\n]*`/g, "");
  return [
    ...[...prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!),
    ...[...prose.matchAll(/^\s*\[[^\]]+\]:\s+<?(\S+?)>?(?:\s+"[^"]*")?\s*$/gm)].map((m) => m[1]!),
    ...[...prose.matchAll(/\b(?:href|src)="([^"]+)"/g)].map((m) => m[1]!),
  ];
}

/** The folders and root files of this repository that a path in code can name (run outputs are not in it). */
const REPO_PATH =
  /^(?:\.\/)?(?:(?:lib|research|tests|tools|bench|notebooks|docs|python|\.ci)\/[\w.*\-/]*|mod\.ts|deno\.json|deno\.lock|README\.md)$/;

/** Paths named in code spans and code blocks: words that look like a repository path. */
function codePaths(text: string): string[] {
  const code = [
    ...[...text.matchAll(/^```[^\n]*\n([\s\S]*?)^```/gm)].map((m) => m[1]!),
    ...[...text.replace(/^```[\s\S]*?^```/gm, "").matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!),
  ];
  return code.flatMap((c) => c.split(/[\s"'()[\]=,;:]+/))
    .map((w) => w.replace(/[.,;:]+$/, ""))
    .filter((w) => REPO_PATH.test(w) && !/[<>{}…]|NAME/.test(w));
}

Deno.test("docs: every relative link in README.md, docs/ and the notebooks resolves (files and anchors)", () => {
  const broken: string[] = [];
  let checked = 0;
  for (const d of docs()) {
    for (const target of linkTargets(d.text)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto: — public sources by address
      checked += 1;
      const [path, anchor] = target.split("#") as [string, string | undefined];
      const file = path === "" ? (d.name.endsWith(".md") ? d.name : "") : join(d.dir, decodeURIComponent(path));
      if (path !== "" && (file.startsWith("..") || !exists(file))) {
        broken.push(`${d.name}: ${target} (no ${file} in the repository)`);
        continue;
      }
      if (
        anchor !== undefined && file.endsWith(".md") && !anchors(Deno.readTextFileSync(join(root, file))).has(anchor)
      ) {
        broken.push(`${d.name}: ${target} (no heading #${anchor} in ${file})`);
      }
    }
  }
  assert.deepEqual(broken, [], `broken links:\n${broken.join("\n")}`);
  assert.ok(checked >= 30, `only ${checked} relative links found: is the link pattern still right?`);
});

Deno.test("docs: every repository path named in README.md, docs/ and the notebooks' markdown exists", () => {
  const missing: string[] = [];
  let checked = 0;
  for (const d of docs()) {
    for (const p of codePaths(d.text)) {
      checked += 1;
      const path = p.replace(/^\.\//, "");
      if (!(path.includes("*") ? glob(path).length > 0 : exists(path))) missing.push(`${d.name}: ${p}`);
    }
  }
  assert.deepEqual(missing, [], `paths that are not in the repository:\n${missing.join("\n")}`);
  assert.ok(checked >= 50, `only ${checked} paths found: is the path pattern still right?`);
});

// The outside names, spelled in parts so that this file does not cite them itself.
const DESIGN = ["SP" + "EC", "ST" + "YLE", "BENCH" + "MARK"];
const [SHARED, SEED] = ["sha" + "red/", "se" + "ed"];

/**
 * What a reader of the repository does not have: the project's early study notes, its design files (the three
 * names of DESIGN, each a .md) and the folder beside the checkout that held them.
 */
const OUTSIDE = new RegExp(
  `\\b(?:${DESIGN.join("|")})\\.md\\b|\\b(?:${DESIGN.slice(0, 2).join("|")}) §|(?:\\.\\.\\/)+${SHARED}|` +
    `(?<![\\w.-])${SHARED}|\\b${SEED} notes?\\b`,
  "gi",
);

/** The outside names, and in prose a machine's own paths (code may write to /tmp/). */
function outsideRefs(text: string): { line: number; text: string }[] {
  const outside = new RegExp(`${OUTSIDE.source}|\\/work\\/|\\/home\\/|\\/tmp\\/`, "gi");
  return [...text.matchAll(outside)].map((m) => ({ line: text.slice(0, m.index).split("\n").length, text: m[0] }));
}

Deno.test("docs: nothing points outside the repository (study notes, design folder, a machine's paths)", () => {
  const outside = docs().flatMap((d) => outsideRefs(d.text).map((r) => `${d.name}:${r.line}: ${r.text}`));
  assert.deepEqual(outside, [], `references a reader of the repository does not have:\n${outside.join("\n")}`);
});

/** A file the repository shows a reader (code, tests, docs, notebooks), as text. */
interface Source {
  name: string;
  text: string;
}

/** Every code, test, doc and notebook file of the repository: lib/, research/, tests/, bench/, tools/, python/, docs/, notebooks/, .ci/, README.md, mod.ts. */
function sources(): Source[] {
  const text = /\.(?:ts|js|py|md|ipynb|json|sh)$|^run$/;
  const files = ["lib", "research", "tests", "bench", "tools", "python", "docs", "notebooks", ".ci"].flatMap((d) =>
    walk(d, (n) => text.test(n))
  );
  return [...files, "README.md", "mod.ts"].map((f) => ({ name: f, text: Deno.readTextFileSync(join(root, f)) }));
}

/** Folders a run or an export writes (placeholders and run names): their paths name outputs, not repository files. */
const OUTPUT_DIRS = /^(?:runs|RUN|run|out|OUT|DIR|data)\//;

/**
 * The citations in `text` a reader cannot follow:
 * - a name of `OUTSIDE` (the study notes, the design files, the folder beside the checkout);
 * - a repository path (`lib/…`, `docs/…#anchor`, …, the `REPO_PATH` words) that `has` does not find, from the root or
 *   from the folder of `from` (a markdown file's relative link), or whose anchor is no heading of the markdown file
 *   it names;
 * - any other path-like word naming a source or doc file (`a/b.ts`, `../x/y.md#part`, `research/z.ipynb`: a slash and
 *   a `.ts`, `.md` or `.ipynb` name) that resolves neither from the root, nor from the folder of `from`, nor from
 *   `lib/` (the code cites `model/config.ts` for `lib/model/config.ts`). In `.ts` files a quoted word is a string or
 *   an import (`deno check` resolves imports), not a citation.
 * Run outputs (`runs/…`, `RUN/…`, `data/…`) are no repository paths and are not checked; public code outside the
 * repository is cited by name (`verl/trainer/ppo/core_algos.py`), which names no source file of ours.
 */
export function citationProblems(
  text: string,
  has: (path: string) => boolean,
  headings: (file: string) => Set<string>,
  from = "",
): string[] {
  const problems: string[] = [];
  const dir = from.includes("/") ? dirname(from) : "";
  /** The repository file `path` names, from the root, from `from`'s folder, or from lib/ (bare code citations). */
  const resolve = (path: string, fromLib: boolean) =>
    [path, ...(dir ? [join(dir, path)] : []), ...(fromLib ? [join("lib", path)] : [])]
      .map((p) => p.replace(/\/$/, ""))
      .find((p) => !p.startsWith("..") && (p.includes("*") ? glob(p).length > 0 : has(p)));
  const check = (i: number, path: string, anchor: string | undefined, fromLib: boolean) => {
    const file = resolve(path, fromLib);
    if (file === undefined) problems.push(`${i + 1}: ${path} (no such file in the repository)`);
    else if (anchor !== undefined && file.endsWith(".md") && !headings(file).has(anchor)) {
      problems.push(`${i + 1}: ${path}#${anchor} (no such heading)`);
    }
  };
  text.split("\n").forEach((line, i) => {
    for (const m of line.matchAll(OUTSIDE)) problems.push(`${i + 1}: ${m[0]} (not in the repository)`);
    // words that start a path: after a space, a quote, a bracket or the line's start (not `../lib/x` or `a/lib/x`)
    const seen = new Set<number>();
    for (
      const m of line.matchAll(/(?<![\w.\/-])((?:lib|research|tests|tools|bench|notebooks|docs|python)\/[\w.*\-\/#]*)/g)
    ) {
      const [path, anchor] = m[1]!.replace(/[.,;:]+$/, "").split("#") as [string, string | undefined];
      if (!REPO_PATH.test(path) || /[<>{}…]|NAME/.test(path) || line.slice(m.index! + m[0].length).startsWith("${")) {
        continue;
      }
      seen.add(m.index!);
      check(i, path, anchor, false);
    }
    // every other word that names a source or doc file by a path
    for (
      const m of line.matchAll(
        /(?<![\w.\/@:$-])((?:\.{1,2}\/)*[A-Za-z_][\w.-]*(?:\/[\w.*-]+)+\.(?:ts|md|ipynb))(?:#([\w-]+))?(?![\w\/])/g,
      )
    ) {
      if (seen.has(m.index!) || OUTPUT_DIRS.test(m[1]!)) continue;
      const quoted = /["'`]/.test(line[m.index! - 1] ?? "") && line[m.index! + m[0].length] === line[m.index! - 1];
      if (from.endsWith(".ts") && quoted && line[m.index! - 1] !== "`") continue;
      check(i, m[1]!, m[2], !m[1]!.startsWith("."));
    }
  });
  return problems;
}

Deno.test("code, tests, docs and notebooks cite only what the repository has: no outside file, no missing path or heading", () => {
  const headings = (file: string) => anchors(Deno.readTextFileSync(join(root, file)));
  // this file's samples name what the scan must catch; its own citations are the lines above
  const problems = sources().filter((s) => s.name !== "tests/docs_links_test.ts").flatMap((s) =>
    citationProblems(s.text, exists, headings, s.name).map((p) => `${s.name}:${p}`)
  );
  assert.deepEqual(problems, [], `citations a reader of the repository cannot follow:\n${problems.join("\n")}`);
  const paths = sources().reduce(
    (n, s) => n + [...s.text.matchAll(/(?<![\w.\/-])(?:lib|tests|bench|docs)\//g)].length,
    0,
  );
  assert.ok(paths >= 200, `only ${paths} repository paths seen: is the pattern still right?`);
});

Deno.test("docs: the checks above fail on what they must catch", () => {
  const d = "see [gone](docs/nope.md), [ok](docs/README.md#nowhere) and `lib/advantage/nope.ts`, `tests/env/*`";
  assert.deepEqual(linkTargets(d), ["docs/nope.md", "docs/README.md#nowhere"]);
  assert.deepEqual(codePaths(d), ["lib/advantage/nope.ts", "tests/env/*"]);
  assert.ok(!exists("docs/nope.md") && !exists("lib/advantage/nope.ts") && glob("tests/env/*").length > 0);
  assert.deepEqual(codePaths("```sh\ndeno run -A research/lookup_probe.ts runs/NAME\n```"), [
    "research/lookup_probe.ts",
  ]);
  assert.deepEqual(codePaths("`runs/default/eval.md`, `data/test.parquet`, `verl/trainer/x.py`"), []);
  assert.equal(slug("Why 6 and 8 objectives fail (`q5`–`q8`)"), "why-6-and-8-objectives-fail-q5q8");
  assert.ok(anchors("# A\n## B c\n```\n# not a heading\n```\n## B c").has("b-c-1"));
  assert.deepEqual(
    outsideRefs(
      `cite \`../${SHARED}${SEED}s/000_x.txt\`,\nthe Seed notes, /work/main and \`${SHARED}design/${DESIGN[0]}.md\``,
    ).map((r) => r.line),
    [1, 2, 2, 2, 2],
  );
  assert.deepEqual(outsideRefs("`python/mempo_verl/` is shared by both; seeds 0, 1, 2"), []);
  assert.deepEqual(outsideRefs(`as ${DESIGN[0]}.md §6 says, the ${DESIGN[1]} § rules, \`${DESIGN[2]}.md\``).length, 3);
});

Deno.test("citationProblems(): a sample with a bad citation of each kind is caught at its line; good ones pass", () => {
  const files = new Set(["lib/model/config.ts", "docs/performance.md", "bench", "docs/research/ppo.md", "lib/tf.ts"]);
  const headings = () => new Set(["the-benchmark"]);
  const sample = [
    "// Source: MiniMind `model_minimind.py`; lib/model/config.ts (the presets) and bench/.", // fine
    " * Measured: docs/performance.md#the-benchmark, runs/default/eval.md, data/default/train.parquet.", // fine
    "// the presets (lib/model/configs.ts)", // 3: no such file
    " * see docs/performance.md#bench-history.", // 4: no such heading
    `# workloads of ${DESIGN[2]}.md, the torch script in ../${SHARED}bench`, // 5: two outside names
    "const p = `${dir}/lib/x.ts`; // built at run time, and ../lib/model/x.ts is not there", // 6: relative, missing
    "// model/config.ts (from the lib folder), ../tf.ts (from this file), RUN/diagnostics.md (an output)", // fine
    "// as env/world.ts says, and ../../docs/nope.md#x", // 8: two missing files
    'import { a } from "./a.ts"; const s = "b/c.ts"; // strings and imports are deno check\'s', // fine in .ts
    "see [research/ppo.md](research/ppo.md), verl's `verl/trainer/ppo/core_algos.py`", // fine from docs/
  ].join("\n");
  assert.deepEqual(citationProblems(sample, (p) => files.has(p), headings, "lib/model/sample.ts"), [
    "3: lib/model/configs.ts (no such file in the repository)",
    "4: docs/performance.md#bench-history (no such heading)",
    `5: ${DESIGN[2]}.md (not in the repository)`,
    `5: ../${SHARED} (not in the repository)`,
    "6: ../lib/model/x.ts (no such file in the repository)",
    "8: env/world.ts (no such file in the repository)",
    "8: ../../docs/nope.md (no such file in the repository)",
    "10: research/ppo.md (no such file in the repository)",
    "10: research/ppo.md (no such file in the repository)",
  ]);
  // the same line from docs/README.md: its relative links resolve from docs/
  assert.deepEqual(citationProblems(sample.split("\n")[9]!, (p) => files.has(p), headings, "docs/README.md"), []);
});

Deno.test("README.md: the two commands first, at most 200 lines, results between their markers, the tour tested", () => {
  const readme = Deno.readTextFileSync(join(root, "README.md"));
  const lines = readme.replace(/\n$/, "").split("\n");
  assert.ok(lines.length <= 200, `README.md has ${lines.length} lines (at most 200)`);
  // the title, then the commands, before anything else
  const firstBlock = readme.match(/^# [^\n]+\n\n```sh\n([\s\S]*?)\n```\n/);
  assert.ok(firstBlock, "README.md starts with its title and a sh block");
  const commands = firstBlock[1]!.split("\n");
  assert.equal(commands.length, 2, `the first block holds the two commands, got:\n${firstBlock[1]}`);
  assert.match(commands[0]!, /^npx -y deno@2\.9\.6 task train\s+#/);
  assert.match(commands[1]!, /^npx -y deno@2\.9\.6 task test\s+#/);
  // the results, between the lines the lead refreshes: a table of the default run, a figure and the write-up
  const start = readme.indexOf("<!-- results:start -->");
  const end = readme.indexOf("<!-- results:end -->");
  assert.ok(start > 0 && end > start, "README.md has <!-- results:start --> before <!-- results:end -->");
  assert.equal(readme.split("<!-- results:start -->").length, 2, "one results:start marker");
  const results = readme.slice(start, end);
  assert.ok((results.match(/^\|.*\|$/gm) ?? []).length >= 4, "the results hold a table");
  assert.match(results, /!\[[^\]]*\]\([^)]+\.svg\)/, "the results show a figure");
  assert.match(results, /\]\(docs\/[^)]+\.md[^)]*\)/, "the results link the full write-up in docs/");
  assert.doesNotMatch(results, /\b(TODO|TBD|placeholder)\b/i, "the results are numbers, not a placeholder");
  // the tour is tests/readme_tour_test.ts's code, compared without layout (deno fmt wraps each at its own indent)
  const tour = readme.match(/^```ts\n([\s\S]*?)^```/m);
  assert.ok(tour, "README.md shows a ```ts tour");
  const test = Deno.readTextFileSync(join(root, "tests/readme_tour_test.ts"));
  const marked = [...test.matchAll(/\/\/ readme:start\n([\s\S]*?)\n\s*\/\/ readme:end/g)].map((m) => m[1]!).join("\n");
  assert.ok(marked.includes('from "../mod.ts"'), "tests/readme_tour_test.ts marks its import of mod.ts");
  const shape = (code: string) =>
    code.replaceAll('"../mod.ts"', '"./mod.ts"').replace(/,(\s*[)\]}])/g, "$1").replace(/\s+/g, "");
  assert.equal(shape(tour[1]!), shape(marked), "README.md's tour differs from the code tests/readme_tour_test.ts runs");
});
