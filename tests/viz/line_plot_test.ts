import assert from "node:assert/strict";
import { JUPYTER_DISPLAY } from "../../lib/viz/display.ts";
import { linePanels, linePlot, type Series } from "../../lib/viz/line_plot.ts";
import { seriesStyle } from "../../lib/viz/series_style.ts";
import { all, frameBox, overlaps, panelBox, parseSvg, pathRuns, texts } from "./_svg.ts";

const ramp = (n: number, f: (i: number) => number, x = (i: number) => i): [number, number][] =>
  Array.from({ length: n }, (_, i) => [x(i), f(i)]);

Deno.test("linePlot(): one line per series in its slot's colour and dash, a marker symbol each, in the legend", () => {
  const series: Series[] = ["a", "b", "c", "d"].map((name, k) => ({ name, points: ramp(5, (i) => i * k) }));
  const svg = parseSvg(linePlot(series, { yLabel: "loss (nats per token)" }).svg);
  const [chart, legend] = all(svg, "svg[data-panel]");
  const lines = all(chart!, 'g[aria-label="line"]');
  assert.deepEqual(
    lines.map((g) => [g.getAttribute("stroke"), g.getAttribute("stroke-dasharray") ?? ""]),
    [0, 1, 2, 3].map((i) => [seriesStyle(i).color, seriesStyle(i).dash]),
  );
  const shapes = all(chart!, 'g[aria-label="dot"]').map((g) => g.querySelector("circle, path")!);
  const shapeKey = (e: { tagName: string; getAttribute(n: string): string | null }) =>
    e.tagName.toLowerCase() === "circle" ? "circle" : e.getAttribute("d")!;
  assert.equal(new Set(shapes.map(shapeKey)).size, 4, "four different marker shapes");
  assert.deepEqual(texts(legend!, 'g[aria-label="text"] text'), ["a", "b", "c", "d"]);
  assert.deepEqual(texts(chart!, 'g[aria-label="y-axis label"] text'), ["loss (nats per token)"]);
});

Deno.test("linePlot(): integer x gives exactly those ticks; fractional x keeps Plot's round ticks", () => {
  const sparse = parseSvg(linePlot([{ name: "s", points: [[1, 0], [2, 1], [4, 3], [8, 2]] }]).svg);
  assert.deepEqual(texts(sparse, 'g[aria-label="x-axis tick label"] text'), ["1", "2", "4", "8"]);
  const frac = parseSvg(linePlot([{ name: "s", points: ramp(7, (i) => i, (i) => (i + 1) / 8) }]).svg);
  const ticks = texts(frac, 'g[aria-label="x-axis tick label"] text');
  assert.deepEqual(ticks, ["0.2", "0.3", "0.4", "0.5", "0.6", "0.7", "0.8"]);
  const explicit = parseSvg(linePlot([{ name: "s", points: ramp(3, (i) => i) }], { xTicks: [0, 2] }).svg);
  assert.deepEqual(texts(explicit, 'g[aria-label="x-axis tick label"] text'), ["0", "2"]);
});

Deno.test("linePlot(): markers on every point of a short series, on every ceil(n/12)-th of a long one", () => {
  const count = (n: number) => {
    const svg = parseSvg(linePlot([{ name: "s", points: ramp(n, (i) => Math.sin(i)) }]).svg);
    const chart = svg.querySelector('svg[data-panel="chart"]')!;
    return all(chart, 'g[aria-label="dot"] circle').length;
  };
  assert.equal(count(16), 16);
  assert.equal(count(41), 11); // k = 4: points 0, 4, …, 40
  assert.equal(count(100), 12); // k = 9: points 0, 9, …, 99
});

Deno.test("linePlot(): a non-finite y breaks the line; no NaN reaches the SVG; labels are escaped", () => {
  const fig = linePlot([{ name: "MemPO <memory>", points: [[0, 1], [1, 2], [2, NaN], [3, 1], [4, 0]] }], {
    title: "F1 & tokens",
  });
  assert.ok(!fig.svg.includes("NaN"));
  assert.ok(fig.svg.includes(">MemPO &lt;memory&gt;</text>") && fig.svg.includes(">F1 &amp; tokens</text>"));
  const d = parseSvg(fig.svg).querySelector('svg[data-panel="chart"] g[aria-label="line"] path')!.getAttribute("d")!;
  assert.deepEqual(pathRuns(d).map((r) => r.length), [2, 2]);
  assert.deepEqual(Object.keys(fig[JUPYTER_DISPLAY]()), ["image/svg+xml", "text/html"]);
  assert.ok(linePlot([]).svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"'));
});

Deno.test("linePlot(): the legend lies beside the plot area, and wide strokes are drawn under thin ones", () => {
  const long = { name: "a series with a rather long name", points: ramp(4, (i) => i) };
  const band = { name: "band", points: ramp(4, (i) => i), style: { width: 5, opacity: 0.4 } };
  const svg = parseSvg(linePlot([long, band], { title: "t", width: 500 }).svg);
  const chart = svg.querySelector('svg[data-panel="chart"]')!;
  const legend = panelBox(svg.querySelector('svg[data-panel="legend"]')!);
  assert.equal(overlaps(frameBox(chart), legend), false);
  assert.ok(legend.x + legend.width <= 500, "the legend fits in the figure");
  assert.deepEqual(all(chart, 'g[aria-label="line"]').map((g) => g.getAttribute("stroke-width")), ["5", "1.75"]);
});

Deno.test("linePanels(): panels stack with one x domain; the x label sits under the last; one legend row per name", () => {
  const a = { name: "a", points: ramp(5, (i) => i) };
  const b = { name: "b", points: ramp(3, (i) => -i, (i) => i + 2) };
  const fig = linePanels([{ series: [a, b], yLabel: "reward" }, { series: [b] }], { xLabel: "step", height: 200 });
  const svg = parseSvg(fig.svg);
  const charts = all(svg, 'svg[data-panel="chart"]');
  assert.deepEqual(charts.map((c) => panelBox(c).y), [0, 200]);
  assert.equal(svg.getAttribute("height"), "400");
  // both panels span x = 0..4: the same tick labels at the same x
  const ticks = charts.map((c) =>
    all(c, 'g[aria-label="x-axis tick label"] text').map((
      t,
    ) => [t.textContent, t.getAttribute("transform")!.split(",")[0]])
  );
  assert.deepEqual(ticks[0], ticks[1]);
  assert.deepEqual(ticks[0]!.map((t) => t[0]), ["0", "1", "2", "3", "4"]);
  assert.deepEqual(charts.map((c) => texts(c, 'g[aria-label="x-axis label"] text')), [[], ["step"]]);
  // b keeps its colour (slot 1) in the second panel, where it is the only series
  assert.equal(charts[1]!.querySelector('g[aria-label="line"]')!.getAttribute("stroke"), seriesStyle(1).color);
  assert.deepEqual(texts(svg.querySelector('svg[data-panel="legend"]')!, "text"), ["a", "b"]);
  assert.equal(
    fig.svg,
    linePanels([{ series: [a, b], yLabel: "reward" }, { series: [b] }], { xLabel: "step", height: 200 }).svg,
  );
});

Deno.test("linePanels(): refuses no panels and a width that leaves no room beside the legend", () => {
  assert.throws(() => linePanels([]), /panels is empty/);
  assert.throws(
    () => linePlot([{ name: "x".repeat(60), points: [[0, 1]] }], { width: 300 }),
    /width 300 leaves -?\d+ px/,
  );
  assert.throws(() => linePlot([], { height: 50 }), /height must be ≥ 120 px, got 50/);
});
