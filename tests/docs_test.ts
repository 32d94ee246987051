// Every public export of mod.ts is documented (docs/design.md#which-module-owns-what): a summary, and for
// functions a formula/Source line, one @param per parameter, @returns and an @example.
import assert from "node:assert/strict";

interface JsDoc {
  doc?: string;
  tags?: { kind: string; name?: string; doc?: string }[];
}
interface Declaration {
  kind: string;
  jsDoc?: JsDoc;
  def?: { params?: { kind: string; name?: string; left?: { name?: string } }[] };
}
interface DocSymbol {
  name: string;
  declarations: Declaration[];
}

const EXEMPT = new Set(["tf"]); // the TensorFlow.js namespace, documented upstream

async function symbols(): Promise<DocSymbol[]> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["doc", "--json", "mod.ts"],
    env: { NO_COLOR: "1" },
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  const json = JSON.parse(new TextDecoder().decode(out.stdout));
  const mod = Object.values(json.nodes as Record<string, { symbols: DocSymbol[] }>)[0]!;
  return mod.symbols;
}

Deno.test("deno doc: mod.ts has a module doc and every export a summary", async () => {
  const syms = await symbols();
  assert.ok(syms.length >= 40, `only ${syms.length} exports`);
  for (const s of syms) {
    if (EXEMPT.has(s.name)) continue;
    const doc = s.declarations.map((d) => d.jsDoc?.doc ?? "").find((d) => d.trim().length > 0);
    assert.ok(doc, `${s.name} has no JSDoc summary`);
  }
});

Deno.test("deno doc: every exported function has @param for each parameter, @returns, @example and a Source line", async () => {
  for (const s of await symbols()) {
    const fns = s.declarations.filter((d) => d.kind === "function");
    if (fns.length === 0 || EXEMPT.has(s.name)) continue;
    const documented = fns.find((d) => d.jsDoc?.doc);
    assert.ok(documented, `${s.name}: no JSDoc`);
    const tags = documented.jsDoc!.tags ?? [];
    assert.ok(tags.some((t) => t.kind === "example"), `${s.name}: no @example`);
    assert.ok(tags.some((t) => t.kind === "return"), `${s.name}: no @returns`);
    assert.ok(/Source:/.test(documented.jsDoc!.doc!), `${s.name}: no "Source:" line`);
    const documentedParams = new Set(tags.filter((t) => t.kind === "param").map((t) => t.name));
    for (const p of documented.def?.params ?? []) {
      const name = p.name ?? p.left?.name;
      if (name) assert.ok(documentedParams.has(name), `${s.name}: parameter ${name} has no @param`);
    }
  }
});
