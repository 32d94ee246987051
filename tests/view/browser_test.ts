// deno task view in a real browser: Debian's Chromium, driven by puppeteer-core, through the run list, a run's live
// curves and the episode browser. Without Chromium the test is skipped with the line that installs it
// (MEMPO_REQUIRE_CHROMIUM=1, as in CI, makes that a failure). MEMPO_VIEW_SCREENSHOTS=DIR saves the three pages as PNGs.
import assert from "node:assert/strict";
import puppeteer, { type Page } from "puppeteer-core";
import { serveView } from "../../lib/view/server.ts";
import type { EpisodeRecord } from "../../lib/episodes/episode_record.ts";
import { FIXTURE_STEPS, writeViewFixture } from "./_run_fixture.ts";

const CHROMIUM = Deno.env.get("MEMPO_CHROMIUM") ?? "/usr/bin/chromium";
const hasChromium = await Deno.stat(CHROMIUM).then((s) => s.isFile, () => false);
const required = Deno.env.get("MEMPO_REQUIRE_CHROMIUM") === "1";
if (!hasChromium && !required) {
  console.log(
    `skipped: deno task view in a browser: no Chromium at ${CHROMIUM} (install: apt-get install -y chromium)`,
  );
}
const shots = Deno.env.get("MEMPO_VIEW_SCREENSHOTS");

async function points(page: Page, id: string): Promise<number> {
  return Number(await page.$eval(`#chart-${id}`, (e) => e.getAttribute("data-points") ?? "0"));
}

Deno.test({
  name: "deno task view in Chromium: the run list, a run's curves (live while it trains), an episode with its credit",
  ignore: !hasChromium && !required,
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    assert.ok(
      hasChromium,
      `MEMPO_REQUIRE_CHROMIUM=1 but no Chromium at ${CHROMIUM} (install: apt-get install -y chromium)`,
    );
    const root = await Deno.makeTempDir();
    const data = await writeViewFixture(root);
    const stop = new AbortController();
    let url = "";
    const server = await serveView({ root, port: 0, signal: stop.signal, onListen: (u) => (url = u) });
    const browser = await puppeteer.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
    });
    try {
      const page = await browser.newPage();
      await page.setViewport({ width: 1280, height: 900 });
      const errors: string[] = [];
      page.on("pageerror", (e) => errors.push(String(e)));

      // 1. the run list: both runs, the finished one done, the other in MemPO's second step
      await page.goto(url);
      const rows = await page.$$eval(
        "table.runs tbody tr",
        (trs) => trs.map((tr) => [...tr.querySelectorAll("td")].slice(0, 4).map((td) => td.textContent?.trim())),
      );
      assert.deepEqual(rows, [["live", "quick", "mempo", `step 2/${FIXTURE_STEPS}`], [
        "small",
        "quick",
        "done",
        "evaluated",
      ]]);
      if (shots) await page.screenshot({ path: `${shots}/runs.png`, fullPage: true });

      // 2. a finished run's page, reached by its link: uPlot draws every metrics row (6 steps × MemPO and GRPO)
      await Promise.all([page.waitForNavigation(), page.click('a[href="/runs/small"]')]);
      await page.waitForFunction(`Number(document.getElementById("chart-reward")?.dataset.points) > 0`);
      assert.equal(await points(page, "reward"), 2 * FIXTURE_STEPS);
      assert.equal(await points(page, "sft"), 10);
      assert.equal(await page.$$eval("#chart-reward canvas", (c) => c.length), 1);
      const legend = await page.$eval("#chart-reward .u-legend", (e) => e.textContent ?? "");
      assert.match(legend, /MemPO[\s\S]*GRPO/);
      assert.match(await page.$eval("table.eval", (e) => e.textContent ?? ""), /MemPO \(memory\)/);
      assert.ok(
        await page.$eval(
          'img[alt="eval_f1.svg"]',
          (img) => (img as unknown as { naturalWidth: number }).naturalWidth > 0,
        ),
      );
      if (shots) await page.screenshot({ path: `${shots}/run.png`, fullPage: true });

      // 3. a run in training: a row written in two halves appears once whole, without a reload
      await page.goto(`${url}runs/live`);
      await page.waitForFunction(`Number(document.getElementById("chart-reward")?.dataset.points) > 0`);
      assert.equal(await points(page, "reward"), 2, "the torn third row is not drawn");
      const row = JSON.stringify({ stage: "mempo", step: 2, "rollout/reward_mean": 0.75, "kl/ref": 0.01 });
      // the torn line the fixture left is the start of this row: the writer finishes it
      const metrics = `${root}/live/metrics.jsonl`;
      const text = await Deno.readTextFile(metrics);
      await Deno.writeTextFile(metrics, text.slice(0, text.lastIndexOf("\n") + 1) + row.slice(0, 30));
      await new Promise((r) => setTimeout(r, 3500));
      assert.equal(await points(page, "reward"), 2, "half a row: still 2 points");
      await Deno.writeTextFile(metrics, row.slice(30) + "\n", { append: true });
      await page.waitForFunction(`Number(document.getElementById("chart-reward")?.dataset.points) === 3`, {
        timeout: 15_000,
      });
      assert.match(await page.$eval("#status", (e) => e.textContent ?? ""), /step 3\/6/);

      // 4. the episode browser: the 2-objective set, question 2, MemPO beside SFT's full context, the gold answer shown
      await page.goto(`${url}runs/small/episodes`);
      await Promise.all([page.waitForNavigation(), page.select('select[name="size"]', "2")]);
      await Promise.all([page.waitForNavigation(), page.select('select[name="index"]', "1")]);
      const sides = await page.$$eval(
        ".mempo-episode",
        (es) => es.map((e) => `${e.getAttribute("data-agent")} (${e.getAttribute("data-policy")})`),
      );
      assert.deepEqual(sides, ["MemPO (memory)", "SFT (full)"]);
      const q = data.test.get(2)![1]!;
      const gold = (q.targets as string[][]).map((a) => a.join(" / ")).join(" ; ");
      assert.deepEqual(await page.$$eval("dd.gold", (ds) => ds.map((d) => d.textContent)), [gold, gold]);
      if (shots) await page.screenshot({ path: `${shots}/episodes_eval.png`, fullPage: true });

      // 5. an RL step: every coloured token carries its advantage in its title, as the log holds it
      await page.goto(`${url}runs/small/episodes?stage=mempo&size=3&index=0`);
      const tokens = await page.$$eval(
        ".mempo-episode:first-child .tok[data-adv]",
        (ts) =>
          ts.map((t) => ({
            adv: Number(t.getAttribute("data-adv")),
            title: t.getAttribute("title") ?? "",
            bg: (t as unknown as { style: { background: string } }).style.background,
          })),
      );
      const res = await fetch(`${url}api/runs/small/episodes/mempo?size=3&index=0`);
      const record = ((await res.json()) as EpisodeRecord[])[0]!;
      assert.deepEqual(tokens.map((t) => t.adv), record.turns.flatMap((t) => t.advantages ?? []));
      for (const t of tokens) {
        const shown = Number(t.title.match(/A = ([+−])(\d+\.\d{4})/)!.slice(1).join("").replace("−", "-"));
        assert.ok(Math.abs(shown - t.adv) < 5e-5, `${t.title} vs ${t.adv}`);
        if (t.adv !== 0) assert.match(t.bg, /rgba\((26, 127, 55|207, 34, 46)/);
      }
      assert.ok(await page.$(".mempo-episode .legend .bar"), "the colour legend");
      if (shots) await page.screenshot({ path: `${shots}/episodes_rl.png`, fullPage: true });
      assert.deepEqual(errors, [], "no script error on any page");
    } finally {
      await browser.close();
      stop.abort();
      await server.finished;
    }
  },
});
