// The browser side of `deno task view` (served as /assets/view.js): draws the training curves with uPlot from
// /api/runs/NAME/curves and polls them until the run is done, refreshes the fragments a page marks with data-poll,
// and reloads the episode browser when a choice changes. Everything else is rendered by the server.
"use strict";

const COLORS = { MemPO: "#8250df", GRPO: "#0969da", PPO: "#bf8700", SFT: "#1a7f37", "warm-up": "#6e7781" };
const POLL_MS = 3000;

// one uPlot per chart: rebuilt when its series change (a new algorithm starts), else given the new data
function drawCurves(box) {
  const charts = new Map();
  const draw = (curve) => {
    let el = document.getElementById(`chart-${curve.id}`);
    if (!el) {
      el = document.createElement("div");
      el.className = "chart";
      el.id = `chart-${curve.id}`;
      el.innerHTML = `<h3></h3>`;
      el.querySelector("h3").textContent = curve.title;
      box.appendChild(el);
    }
    const labels = Object.keys(curve.series);
    const data = [curve.x, ...labels.map((l) => curve.series[l])];
    const points = labels.reduce((n, l) => n + curve.series[l].filter((y) => y !== null).length, 0);
    el.dataset.points = String(points);
    el.dataset.series = labels.join(",");
    const old = charts.get(curve.id);
    if (old && old.labels.join() === labels.join()) {
      old.plot.setData(data);
      return;
    }
    if (old) old.plot.destroy();
    const plot = new uPlot(
      {
        width: Math.max(300, el.clientWidth - 12),
        height: 200,
        scales: { x: { time: false } },
        // whole steps on the x axis
        axes: [
          { label: "step", incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000] },
          // wide enough for the longest tick label ("−0.005" was cut at uPlot's default 50 px)
          { size: (_u, values) => Math.max(50, 20 + 7 * Math.max(0, ...(values ?? []).map((v) => String(v).length))) },
        ],
        series: [
          { label: "step" },
          ...labels.map((l) => ({
            label: l,
            stroke: COLORS[l] ?? "#444",
            width: 1.5,
            spanGaps: true,
            points: { size: 4 },
          })),
        ],
      },
      data,
      el,
    );
    charts.set(curve.id, { plot, labels });
  };
  const poll = async () => {
    let live = box.dataset.live === "true";
    try {
      const r = await fetch(box.dataset.curves);
      if (r.ok) {
        const body = await r.json();
        body.curves.forEach(draw);
        live = !body.done;
        box.dataset.loaded = String(Number(box.dataset.loaded ?? 0) + 1);
      }
    } catch (_) {
      // the server restarting: try again at the next poll
    }
    if (live) setTimeout(poll, POLL_MS);
  };
  poll();
}

function pollFragment(el) {
  setInterval(async () => {
    try {
      const r = await fetch(el.dataset.poll);
      if (r.ok) el.innerHTML = await r.text();
    } catch (_) {
      // next time
    }
  }, POLL_MS);
}

document.querySelectorAll("[data-curves]").forEach(drawCurves);
document.querySelectorAll("[data-poll]").forEach(pollFragment);
document.querySelectorAll("form.pick select").forEach((s) => {
  s.addEventListener("change", () => {
    // the fields a change makes stale take their defaults again: every field after a new log; what is beside an RL
    // episode (its group mates) after a new step or episode
    const rl = s.form.elements.namedItem("agent") === null;
    const stale = s.name === "stage" ? ["size", "index", "agent", "vs"] : rl && s.name !== "vs" ? ["vs"] : [];
    for (const name of stale) {
      const field = s.form.elements.namedItem(name);
      if (field) field.disabled = true;
    }
    s.form.submit();
  });
});
