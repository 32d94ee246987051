// The committed notebooks: clean metadata (no timestamps, counts or absolute paths), code that
// forms one module, outputs present; and the helpers that enforce it.
import assert from "node:assert/strict";
import { cleanNotebook, type Notebook, notebookCode } from "../../lib/viz/notebook.ts";

const dir = new URL("../../notebooks/", import.meta.url);
const names = [...Deno.readDirSync(dir)].map((e) => e.name).filter((n) => n.endsWith(".ipynb")).sort();

Deno.test("notebooks: nine numbered lessons, committed with outputs and clean metadata", async () => {
  assert.equal(names.length, 9, names.join(", "));
  names.forEach((n, i) => assert.match(n, new RegExp(`^0${i + 1}_[a-z_]+\\.ipynb$`)));
  for (const n of names) {
    const text = await Deno.readTextFile(new URL(n, dir));
    const nb = JSON.parse(text) as Notebook;
    assert.deepEqual(cleanNotebook(nb), nb, `${n} is not clean (run deno task notebooks --write)`);
    assert.ok(!/\/work\/|\/root\/|\/home\/|\/tmp\//.test(text), `${n} contains an absolute path`);
    assert.ok(
      !/"(execution|iopub|shell)\.[a-z_]+"|"start_time"|"end_time"/.test(text),
      `${n} has execution timestamps`,
    );
    const code = nb.cells.filter((c) => c.cell_type === "code");
    assert.ok(code.length >= 4, `${n} has ${code.length} code cells`);
    assert.ok(code.some((c) => (c.outputs ?? []).length > 0), `${n} was committed without outputs`);
    assert.ok(notebookCode(nb).includes('from "../mod.ts"'), `${n} must import from ../mod.ts`);
    assert.ok(!/^\s*(export\s+)?function\s/m.test(notebookCode(nb)), `${n} defines a function: logic belongs in lib/`);
  }
});
