import assert from "node:assert/strict";
import type { EvalRow } from "../../lib/eval/evaluate.ts";
import { CONTEXT_LINES, evalFigure } from "../../lib/viz/eval_figure.ts";
import { seriesStyle } from "../../lib/viz/series_style.ts";
import { all, type El, frameBox, overlaps, panelBox, parseSvg, pathRuns, texts } from "./_svg.ts";

// five agents over 1, 2, 4, 8 objectives (unequal steps: the old axis showed 1.75, 2.50, 3.25 here);
// SFT (memory) and PPO are equal everywhere, and the teacher's two policies are equal in F1
const OBJECTIVES = [1, 2, 4, 8];
const f1 = {
  Teacher: () => 1,
  SFT: (k: number) => 0.8 / k,
  PPO: (k: number) => 0.8 / k,
  MemPO: (k: number) => 1 - k / 10,
};
const rows = [
  ...(["full", "memory"] as const).flatMap((contextPolicy) =>
    (["Teacher", "SFT"] as const).flatMap((agent) =>
      OBJECTIVES.map((objectives) => ({
        agent,
        contextPolicy,
        objectives,
        f1: agent === "SFT" && contextPolicy === "full" ? 0.5 : f1[agent](objectives),
        totalTokens: (contextPolicy === "full" ? 200 : 120) * objectives,
      }))
    )
  ),
  ...(["PPO", "MemPO"] as const).flatMap((agent) =>
    OBJECTIVES.map((objectives) => ({
      agent,
      contextPolicy: "memory",
      objectives,
      f1: f1[agent](objectives),
      totalTokens: 120 * objectives,
    }))
  ),
];

const chartOf = (svg: string): [El, El, El] => {
  const root = parseSvg(svg);
  return [root, root.querySelector('svg[data-panel="chart"]')!, root.querySelector('svg[data-panel="legend"]')!];
};
const lineKey = (g: El) => `${g.getAttribute("stroke")} ${g.getAttribute("stroke-dasharray") ?? "solid"}`;

Deno.test("evalFigure(): the x ticks are exactly the objective counts, as integers", () => {
  const [, chart] = chartOf(evalFigure(rows, "f1").svg);
  assert.deepEqual(texts(chart, 'g[aria-label="x-axis tick label"] text'), ["1", "2", "4", "8"]);
  assert.deepEqual(texts(chart, 'g[aria-label="y-axis tick label"] text'), ["0.0", "0.2", "0.4", "0.6", "0.8", "1.0"]);
});

Deno.test("evalFigure(): a colour and marker per agent, a line style per context policy, legend in table order", () => {
  const [, chart, legend] = chartOf(evalFigure(rows, "f1").svg);
  const names = ["Teacher (full)", "Teacher (memory)", "SFT (full)", "SFT (memory)", "PPO (memory)", "MemPO (memory)"];
  assert.deepEqual(texts(legend, "text"), names);
  const slot = { Teacher: 0, SFT: 1, PPO: 2, MemPO: 4 };
  const agentOf = (name: string) => name.split(" ")[0] as keyof typeof slot;
  // lines: full ones (wide, dashed, translucent) first, underneath
  const lines = all(chart, 'g[aria-label="line"]');
  assert.deepEqual(
    lines.map((g) => [g.getAttribute("stroke"), g.getAttribute("stroke-dasharray"), g.getAttribute("stroke-width")]),
    [
      ...names.filter((n) => n.includes("full")).map((n) => [seriesStyle(slot[agentOf(n)]).color, "7 3", "5"]),
      ...names.filter((n) => n.includes("memory")).map((n) => [seriesStyle(slot[agentOf(n)]).color, null, "1.75"]),
    ],
  );
  assert.deepEqual(Object.keys(CONTEXT_LINES).sort(), ["full", "memory"]);
  // markers: one shape per agent (a circle is a <circle>, the others <path d>), the same under both policies
  const shape = (g: El) => g.querySelector("circle") ? "circle" : g.querySelector("path")!.getAttribute("d")!;
  const dots = all(chart, 'g[aria-label="dot"]');
  const byAgent = new Map<string, Set<string>>();
  for (const [i, g] of dots.entries()) {
    const name = [...names.filter((n) => n.includes("full")), ...names.filter((n) => n.includes("memory"))][i]!;
    if (!byAgent.has(agentOf(name))) byAgent.set(agentOf(name), new Set());
    byAgent.get(agentOf(name))!.add(shape(g));
    assert.equal(all(g, "circle, path").length, OBJECTIVES.length, `${name}: a marker per objective count`);
  }
  assert.ok([...byAgent.values()].every((s) => s.size === 1), "an agent has one marker under both policies");
  assert.equal(new Set([...byAgent.values()].map((s) => [...s][0])).size, 4, "four agents, four marker shapes");
});

Deno.test("evalFigure(): equal curves all stay drawn, told apart by colour, line style and marker", () => {
  const [, chart] = chartOf(evalFigure(rows, "f1").svg);
  const lines = all(chart, 'g[aria-label="line"]');
  const d = (g: El) => g.querySelector("path")!.getAttribute("d");
  // SFT (memory) and PPO: the same path, two lines
  const same = lines.filter((g) => d(g) === d(lines.find((l) => l.getAttribute("stroke") === seriesStyle(2).color)!));
  assert.deepEqual(same.map(lineKey), [`${seriesStyle(1).color} solid`, `${seriesStyle(2).color} solid`]);
  // Teacher full and memory: the same path, a wide dashed band under a thin line
  const teacher = lines.filter((g) => g.getAttribute("stroke") === seriesStyle(0).color);
  assert.equal(d(teacher[0]!), d(teacher[1]!));
  assert.deepEqual(teacher.map(lineKey), [`${seriesStyle(0).color} 7 3`, `${seriesStyle(0).color} solid`]);
  assert.deepEqual(pathRuns(d(teacher[0]!)!).map((r) => r.length), [4]);
});

Deno.test("evalFigure(): axis labels carry units; the legend does not cover the plot area", () => {
  for (
    const [metric, unit] of [["f1", "(mean, 0–1)"], ["totalTokens", "tokens"], ["peakContext", "(tokens"]] as const
  ) {
    const [root, chart, legend] = chartOf(evalFigure(rows.map((r) => ({ ...r, peakContext: 1 })), metric).svg);
    assert.deepEqual(texts(chart, 'g[aria-label="x-axis label"] text'), ["objectives per question (count)"]);
    assert.ok(texts(chart, 'g[aria-label="y-axis label"] text')[0]!.includes(unit), metric);
    const box = panelBox(legend);
    assert.equal(overlaps(frameBox(chart), box), false, metric);
    assert.ok(box.x + box.width <= Number(root.getAttribute("width")), "the legend lies inside the figure");
  }
});

Deno.test("evalFigure(): the same rows in any order give the same bytes; tokens start at 0", () => {
  const a = evalFigure(rows, "totalTokens").svg;
  assert.equal(evalFigure([...rows].reverse(), "totalTokens").svg, a);
  assert.equal(texts(chartOf(a)[1], 'g[aria-label="y-axis tick label"] text')[0], "0");
  // an EvalRow is accepted as it is
  const row: EvalRow = {
    ...rows[0]!,
    em: 1,
    formatValid: 1,
    reward: 1,
    peakContext: 9,
    episodes: 2,
    contextPolicy: "full",
  };
  assert.ok(evalFigure([row], "em").svg.includes(">Teacher (full)</text>"));
});

Deno.test("evalFigure(): refuses an unknown context policy and a non-integer objective count, naming them", () => {
  assert.throws(
    () => evalFigure([{ ...rows[0]!, contextPolicy: "window" }], "f1"),
    /contextPolicy .* got window \(agent Teacher\)/,
  );
  assert.throws(
    () => evalFigure([{ ...rows[0]!, objectives: 2.5 }], "f1"),
    /objectives must be an integer ≥ 1, got 2.5/,
  );
});
