import assert from "node:assert/strict";
import { markdownTable } from "../../lib/viz/table.ts";
import { JUPYTER_DISPLAY } from "../../lib/viz/display.ts";

Deno.test("markdownTable() formats numbers and displays as Markdown", () => {
  const t = markdownTable(["a", "b"], [[1.23456, "x"], [2, "y"]], 2);
  assert.equal(t.markdown, "| a | b |\n| --- | --- |\n| 1.23 | x |\n| 2.00 | y |");
  assert.equal(t[JUPYTER_DISPLAY]()["text/markdown"], t.markdown);
  assert.equal(markdownTable(["n"], [[3]], 0).markdown.split("\n")[2], "| 3 |");
});
