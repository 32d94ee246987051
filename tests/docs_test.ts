// Every export of mod.ts and of every public lib/ and research/ file is documented
// (docs/design.md#which-module-owns-what): a summary, and for functions a formula/Source line, one @param per
// parameter, @returns and an @example. mod.ts re-exports a part of lib/; the rest is imported by path, and is held to
// the same rule.
import assert from "node:assert/strict";

interface JsDoc {
  doc?: string;
  tags?: { kind: string; name?: string; doc?: string }[];
}
interface Declaration {
  kind: string;
  /** `export`, or `private` for an unexported type an export refers to (documented with it). */
  declarationKind?: string;
  jsDoc?: JsDoc;
  def?: { params?: { kind: string; name?: string; left?: { name?: string } }[] };
}
interface DocSymbol {
  name: string;
  declarations: Declaration[];
}

const EXEMPT = new Set(["tf"]); // the TensorFlow.js namespace, documented upstream

/** The public files: every lib/ and research/ file whose name does not start with `_`. */
function publicFiles(): string[] {
  const walk = (dir: string): string[] =>
    [...Deno.readDirSync(dir)].flatMap((e) =>
      e.isDirectory
        ? walk(`${dir}/${e.name}`)
        : e.name.endsWith(".ts") && !e.name.startsWith("_")
        ? [`${dir}/${e.name}`]
        : []
    );
  return [...walk("lib").sort(), ...walk("research").sort()];
}

/** The exported symbols of `files`, documented alone (a file documented with the files it re-exports from lists
 * them as references). */
async function docSymbols(files: readonly string[]): Promise<DocSymbol[]> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["doc", "--json", ...files],
    env: { NO_COLOR: "1" },
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  const json = JSON.parse(new TextDecoder().decode(out.stdout));
  return Object.values(json.nodes as Record<string, { symbols: DocSymbol[] }>).flatMap((m) => m.symbols)
    .filter((s) => s.declarations.some((d) => d.declarationKind !== "private"));
}

/** Every exported symbol of mod.ts and of the public files, once per file that declares or re-exports it. */
async function symbols(): Promise<DocSymbol[]> {
  return [...await docSymbols(["mod.ts"]), ...await docSymbols(publicFiles())];
}

Deno.test("deno doc: mod.ts has a module doc and every export of the public files a summary", async () => {
  assert.ok((await docSymbols(["mod.ts"])).length >= 40, "mod.ts exports the lessons and the pipeline's entry points");
  const syms = await symbols();
  assert.ok(syms.length >= 500, `only ${syms.length} exports`);
  const missing = syms.filter((s) =>
    !EXEMPT.has(s.name) && !s.declarations.some((d) => (d.jsDoc?.doc ?? "").trim().length > 0)
  ).map((s) => s.name);
  assert.deepEqual(missing, [], "exports without a JSDoc summary");
});

Deno.test("deno doc: every exported function has @param for each parameter, @returns, @example and a Source line", async () => {
  const problems: string[] = [];
  for (const s of await symbols()) {
    const fns = s.declarations.filter((d) => d.kind === "function");
    if (fns.length === 0 || EXEMPT.has(s.name)) continue;
    const documented = fns.find((d) => d.jsDoc?.doc);
    if (!documented) {
      problems.push(`${s.name}: no JSDoc`);
      continue;
    }
    const tags = documented.jsDoc!.tags ?? [];
    if (!tags.some((t) => t.kind === "example")) problems.push(`${s.name}: no @example`);
    if (!tags.some((t) => t.kind === "return")) problems.push(`${s.name}: no @returns`);
    if (!/Source:/.test(documented.jsDoc!.doc!)) problems.push(`${s.name}: no "Source:" line`);
    const documentedParams = new Set(tags.filter((t) => t.kind === "param").map((t) => t.name));
    for (const p of documented.def?.params ?? []) {
      const name = p.name ?? p.left?.name;
      if (name && !documentedParams.has(name)) problems.push(`${s.name}: parameter ${name} has no @param`);
    }
  }
  assert.deepEqual([...new Set(problems)], [], "functions short of their documentation");
});
