import assert from "node:assert/strict";
import { JUPYTER_DISPLAY, linePlot } from "../../lib/viz/line_plot.ts";

Deno.test("linePlot() draws one polyline per series, a legend, escaped labels; tolerates NaN and empty input", () => {
  const fig = linePlot([
    { name: "MemPO <memory>", points: [[1, 0.9], [2, 0.8], [4, NaN]] },
    { name: "GRPO", points: [[1, 0.7], [2, 0.6]] },
  ], { title: "F1 & tokens", xLabel: "objectives" });
  assert.equal(fig.svg.match(/<polyline/g)?.length, 2);
  assert.ok(fig.svg.includes("MemPO &lt;memory&gt;"));
  assert.ok(fig.svg.includes("F1 &amp; tokens"));
  assert.ok(!fig.svg.includes("NaN"));
  assert.deepEqual(Object.keys(fig[JUPYTER_DISPLAY]()), ["image/svg+xml"]);
  assert.ok(linePlot([]).svg.startsWith("<svg"));
});
