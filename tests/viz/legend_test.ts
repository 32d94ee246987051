import assert from "node:assert/strict";
import { LEGEND_ROW, legendPanel, legendSize } from "../../lib/viz/legend.ts";
import { renderPanels } from "../../lib/viz/plot_svg.ts";
import { all, parseSvg, pathRuns } from "./_svg.ts";

const entries = [
  { label: "Teacher (full)", style: { color: "#4269d0", symbol: "circle", dash: "7 3", width: 5, opacity: 0.4 } },
  { label: "MemPO (memory)", style: { color: "#3ca951", symbol: "square2", dash: "" } },
  { label: "GRPO (memory)", style: { color: "#6cc5b0", symbol: "times", dash: "8 3 1.5 3" } },
];

Deno.test("legendSize(): a 16 px row per entry; wide enough for the widest label's estimate", () => {
  // "MemPO (memory)": M 9, e 6, m 9, P 7.2, O 7.2, space 3.5, ( 3.5, m 9, e 6, m 9, o 6, r 6, y 6, ) 3.5 = 90.9 px
  // (wider than "Teacher (full)", 72.7 px) → ⌈28 + 8 + 90.9 + 6⌉ = 133
  assert.deepEqual(legendSize(entries), { width: 133, height: 3 * LEGEND_ROW + 8 });
  assert.deepEqual(legendSize([]), { width: 42, height: 8 });
});

Deno.test("legendPanel(): row i holds a line sample in the entry's colour, dash and width, its marker and label", () => {
  const panel = legendPanel(entries, 500, 30);
  assert.deepEqual([panel.role, panel.x, panel.y], ["legend", 500, 30]);
  const svg = parseSvg(renderPanels([panel], { width: 700, height: 100 }));
  const lines = all(svg, 'g[aria-label="line"]');
  assert.deepEqual(
    lines.map((g) => [g.getAttribute("stroke"), g.getAttribute("stroke-dasharray"), g.getAttribute("stroke-width")]),
    [["#4269d0", "7 3", "5"], ["#3ca951", null, "1.75"], ["#6cc5b0", "8 3 1.5 3", "1.75"]],
  );
  // rows at 4 + 16 (i + ½) px, a 26 px sample from x = 2
  const runs = lines.map((g) => pathRuns(g.querySelector("path")!.getAttribute("d")!)[0]!);
  assert.deepEqual(runs, [0, 1, 2].map((i) => [[2, 4 + 16 * (i + 0.5)], [28, 4 + 16 * (i + 0.5)]]));
  const dots = all(svg, 'g[aria-label="dot"]');
  assert.deepEqual(dots.map((g) => g.getAttribute("stroke")), ["#4269d0", "#3ca951", "#6cc5b0"]);
  assert.equal(dots[0]!.querySelector("circle") !== null, true);
  assert.equal(new Set(dots.slice(1).map((g) => g.querySelector("path")!.getAttribute("d"))).size, 2);
  assert.deepEqual(all(svg, 'g[aria-label="text"] text').map((t) => t.textContent), entries.map((e) => e.label));
});
