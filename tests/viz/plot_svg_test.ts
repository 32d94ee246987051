import assert from "node:assert/strict";
import * as Plot from "@observablehq/plot";
import { renderPanels } from "../../lib/viz/plot_svg.ts";
import { all, parseSvg } from "./_svg.ts";

const chart = (values: number[], extra: Partial<Plot.PlotOptions> = {}) => ({
  width: 300,
  height: 120,
  marks: [Plot.lineY(values, { clip: true }), Plot.text(["a & b < c"], { frameAnchor: "top" })],
  ...extra,
});

Deno.test("renderPanels() places each chart as a nested svg in one namespaced document, without Plot's styles", () => {
  const svg = renderPanels([
    { options: chart([1, 2, 3]), x: 0, y: 0, role: "chart" },
    { options: chart([3, 2, 1]), x: 0, y: 120, role: "chart" },
    { options: { width: 80, height: 40, marks: [Plot.dotX([1])] }, x: 300, y: 10, role: "legend" },
  ], { width: 380, height: 240 });
  const root = parseSvg(svg);
  assert.equal(root.getAttribute("xmlns"), "http://www.w3.org/2000/svg");
  assert.deepEqual(["width", "height", "viewBox"].map((a) => root.getAttribute(a)), ["380", "240", "0 0 380 240"]);
  const panels = all(root, "svg[data-panel]");
  assert.deepEqual(
    panels.map((p) => ["data-panel", "x", "y", "width", "height"].map((a) => p.getAttribute(a))),
    [["chart", "0", "0", "300", "120"], ["chart", "0", "120", "300", "120"], ["legend", "300", "10", "80", "40"]],
  );
  // one scoped style at the root; Plot's per-chart `height: auto` styles would stretch nested charts
  assert.equal(svg.match(/<style>/g)?.length, 1);
  assert.equal(panels.every((p) => p.querySelector("style") === null && !p.hasAttribute("class")), true);
  // text is escaped (the file is XML)
  assert.ok(svg.includes("a &amp; b &lt; c"));
  assert.equal(root.querySelector('g[aria-label="text"] text')!.textContent, "a & b < c");
});

Deno.test("renderPanels() gives the same bytes for the same panels although Plot's id counters advance", () => {
  const render = (values: number[]) =>
    renderPanels([{ options: chart(values), x: 0, y: 0, role: "chart" }], { width: 300, height: 120 });
  const a = render([1, 2, 3]);
  const other = render([5, 1, 4]); // advances Plot's process-wide clip-path counter
  assert.equal(render([1, 2, 3]), a);
  // every clip-path id is renamed with the figure's hash, and every reference points to one that exists
  const ids = [...a.matchAll(/ id="([^"]+)"/g)].map((m) => m[1]!);
  assert.ok(ids.length >= 1, "the clipped line makes a clip path");
  for (const id of ids) assert.match(id, /^plot-[0-9a-f]{8}-\d+$/);
  for (const m of a.matchAll(/url\(#([^)]+)\)/g)) assert.ok(ids.includes(m[1]!), m[1]);
  // two different figures on one page never share an id
  const otherIds = [...other.matchAll(/ id="([^"]+)"/g)].map((m) => m[1]!);
  assert.equal(ids.some((id) => otherIds.includes(id)), false);
});

Deno.test("renderPanels() refuses a bad size and options that make Plot return HTML", () => {
  assert.throws(() => renderPanels([], { width: 0, height: 10 }), /size\.width must be > 0, got 0/);
  assert.throws(
    () =>
      renderPanels([{ options: { ...chart([1]), title: "t" }, x: 0, y: 0, role: "chart" }], { width: 9, height: 9 }),
    /panel "chart" sets title/,
  );
});
