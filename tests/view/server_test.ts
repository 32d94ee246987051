// deno task view's routes on a fixture directory: the pages and their JSON, a run being written shown as far as it is
// whole, 404s with a message for what is not there, and no file outside the directory, however the path is spelled.
import assert from "node:assert/strict";
import { browseEpisodes, fileUnder, serveView, viewApp } from "../../lib/view/server.ts";
import type { EpisodeRecord } from "../../lib/episodes/episode_record.ts";
import type { CurveData, RunSummary } from "../../lib/view/run_index.ts";
import { FIXTURE_STEPS, writeViewFixture } from "./_run_fixture.ts";

const root = await Deno.makeTempDir();
const data = await writeViewFixture(root);
const app = viewApp(root);
const get = async (path: string) => {
  const r = await app.request(path);
  return { status: r.status, type: r.headers.get("content-type") ?? "", text: await r.text() };
};

Deno.test("view: the run list names each run with its preset, stage, progress and headline numbers", async () => {
  const runs = JSON.parse((await get("/api/runs")).text) as RunSummary[];
  assert.deepEqual(runs.map((r) => [r.name, r.preset, r.stage, r.progress, r.done]), [
    ["live", "quick", "mempo", `step 2/${FIXTURE_STEPS}`, false],
    ["small", "quick", "done", "evaluated", true],
  ]);
  // the finished run's headline: mean EM over the test sets per agent, the teacher aside
  const evalRows = JSON.parse(await Deno.readTextFile(`${root}/small/eval.json`)).rows as {
    agent: string;
    contextPolicy: string;
    em: number;
  }[];
  const mempo = evalRows.filter((r) => r.agent === "MemPO");
  const mean = mempo.reduce((a, r) => a + r.em, 0) / mempo.length;
  assert.deepEqual(runs[1]!.headline.find((h) => h.label === "MemPO (memory) mean EM")?.value, mean.toFixed(2));
  assert.equal(runs[1]!.headline.length, 4);
  const page = await get("/");
  assert.equal(page.status, 200);
  assert.match(page.type, /^text\/html/);
  assert.match(page.text, /<a href="\/runs\/small">small<\/a>/);
  assert.match(page.text, /<td class="stage live">mempo<\/td><td>step 2\/6<\/td>/);
});

Deno.test("view: a run's page has its charts, evaluation table, figures; the curves' JSON has every metrics row", async () => {
  const page = await get("/runs/small");
  assert.equal(page.status, 200);
  for (const id of ["reward", "equal", "entropy", "kl", "loss", "sft"]) {
    assert.match(page.text, new RegExp(`id="chart-${id}"`));
  }
  assert.match(page.text, /<img src="\/files\/small\/eval_f1.svg" alt="eval_f1.svg">/);
  assert.match(page.text, /<td>MemPO \(memory\)<\/td>/);
  assert.match(page.text, /data-live="false"/);
  const { done, curves } = JSON.parse((await get("/api/runs/small/curves")).text) as {
    done: boolean;
    curves: CurveData[];
  };
  assert.equal(done, true);
  const reward = curves.find((c) => c.id === "reward")!;
  assert.deepEqual(reward.x, [1, 2, 3, 4, 5, 6]);
  const rows = (await Deno.readTextFile(`${root}/small/metrics.jsonl`)).trim().split("\n").map((l) => JSON.parse(l));
  assert.deepEqual(reward.series.MemPO, rows.filter((r) => r.stage === "mempo").map((r) => r["rollout/reward_mean"]));
  assert.deepEqual(Object.keys(reward.series), ["MemPO", "GRPO"]);
  assert.equal(curves.find((c) => c.id === "sft")!.x.length, 10);
  // the figure itself, as the run wrote it
  const svg = await app.request("/files/small/eval_f1.svg");
  assert.equal(svg.headers.get("content-type"), "image/svg+xml");
  assert.equal(await svg.text(), await Deno.readTextFile(`${root}/small/eval_f1.svg`));
});

Deno.test("view: a run being written (torn last lines, a stage in progress) is shown as far as it is whole", async () => {
  const page = await get("/runs/live");
  assert.equal(page.status, 200);
  assert.match(page.text, /data-live="true"/);
  const { curves } = JSON.parse((await get("/api/runs/live/curves")).text) as { curves: CurveData[] };
  assert.deepEqual(curves.find((c) => c.id === "reward")!.x, [1, 2], "the torn third row left out");
  const records = JSON.parse((await get("/api/runs/live/episodes/mempo")).text) as EpisodeRecord[];
  assert.deepEqual([...new Set(records.map((r) => r.step))], [0, 1]);
  assert.equal(records.length, 16);
  const episodes = await get("/runs/live/episodes?stage=mempo");
  assert.equal(episodes.status, 200);
  assert.match(episodes.text, /<option value="1" selected>step 2<\/option>/);
  // the same torn line in the finished run's logs changes nothing either
  const before = (await get("/runs/small/episodes?stage=eval&size=2&index=1")).text;
  await Deno.writeTextFile(`${root}/small/episodes/eval.jsonl`, '{"v":1,"stage":"ev', { append: true });
  await Deno.writeTextFile(`${root}/small/metrics.jsonl`, '{"stage":"gr', { append: true });
  assert.equal((await get("/runs/small/episodes?stage=eval&size=2&index=1")).text, before);
  assert.equal((await get("/runs/small")).status, 200);
  // a line damaged before the last is no torn append: a page naming the file and the line, not a crash
  const damaged = `${root}/damaged`;
  await Deno.mkdir(damaged);
  await Deno.writeTextFile(`${damaged}/metrics.jsonl`, '{"stage":"sft"\n{"stage":"sft","step":1}\n');
  const bad = await get("/runs/damaged");
  assert.equal(bad.status, 500);
  assert.match(bad.text, /damaged\/metrics\.jsonl line 1 is not JSON/);
  assert.match((await get("/")).text, /<span class="problem">.*damaged\/metrics\.jsonl line 1 is not JSON/);
  await Deno.remove(damaged, { recursive: true });
});

Deno.test("view: the episode browser shows the memory agent beside the full-context one, with the gold answer", async () => {
  const page = await get("/runs/small/episodes");
  assert.equal(page.status, 200);
  // defaults: the smallest test set, its first question, MemPO under memory context beside SFT's full context
  assert.match(page.text, /<option value="1" selected>1 objectives<\/option>/);
  assert.match(page.text, /<option value="MemPO \(memory\)" selected>/);
  assert.match(page.text, /data-agent="MemPO" data-policy="memory"[\s\S]*data-agent="SFT" data-policy="full"/);
  const q = data.test.get(2)![1]!;
  const two = await get(
    `/runs/small/episodes?stage=eval&size=2&index=1&agent=${encodeURIComponent("SFT (memory)")}&vs=none`,
  );
  assert.equal(two.status, 200);
  assert.ok(two.text.includes(`<dd>${q.question}</dd>`), "the question");
  const gold = (q.targets as string[][]).map((a) => a.join(" / ")).join(" ; ");
  assert.ok(two.text.includes(`<dd class="gold">${gold}</dd>`), `the gold answer ${gold}`);
  assert.equal(two.text.match(/class="mempo-episode"/g)!.length, 1, "nothing beside it");
  // an RL step: every token with its advantage in a title, and the memory credit of the turns after the first
  const rl = await get("/runs/small/episodes?stage=mempo&size=0&index=0");
  const record = (JSON.parse((await get("/api/runs/small/episodes/mempo?size=0&index=0")).text) as EpisodeRecord[])[0]!;
  const spans = [...rl.text.matchAll(/data-adv="([^"]+)"/g)].map((m) => Number(m[1]));
  const leftTokens = record.turns.reduce((n, t) => n + t.tokens.length, 0);
  assert.deepEqual(spans.slice(0, leftTokens), record.turns.flatMap((t) => t.advantages ?? []));
  assert.match(
    rl.text,
    /title="token 1 · A = [+−]\d\.\d{4} · A\^T [+−]\d\.\d{4} · A\^M [+−]\d\.\d{4} · in &lt;mem&gt;"/,
  );
  assert.match(rl.text, /R\^M <b>[+−]\d\.\d\d<\/b> = P_mem \d\.\d\d − P_full 0\.60/);
});

Deno.test("view: an unknown run, log, test set, question, agent or route is a 404 with a message", async () => {
  const cases: [string, RegExp][] = [
    ["/runs/nope", /No run &quot;nope&quot; under/],
    ["/runs/..%2Fsmall", /No run &quot;..\/small&quot; under/],
    ["/runs/small/episodes?stage=ppo", /small has no &quot;ppo&quot; episodes \(eval, grpo, mempo\)/],
    ["/runs/small/episodes?stage=eval&size=9", /No 9-objective test set in small&#39;s eval episodes \(1, 2\)/],
    ["/runs/small/episodes?stage=eval&size=1&index=7", /No question 8 in the 1-objective test set .* \(2 questions\)/],
    ["/runs/small/episodes?stage=eval&agent=Nobody", /No episode of Nobody on question 1/],
    ["/runs/small/episodes?stage=mempo&size=40", /No step 41 in small&#39;s mempo episodes \(steps 1–6\)/],
    ["/runs/small/episodes?stage=mempo&size=0&index=99", /No episode 100 in step 1/],
    ["/nowhere", /No page \/nowhere/],
  ];
  for (const [path, message] of cases) {
    const r = await get(path);
    assert.equal(r.status, 404, path);
    assert.match(r.text, message, path);
  }
  const api = await app.request("/api/runs/nope/curves");
  assert.equal(api.status, 404);
  assert.match((await api.json()).error, /No run "nope"/);
  assert.equal((await app.request("/api/runs/small/episodes/ppo")).status, 404);
  assert.equal((await app.request("/assets/secret.js")).status, 404);
});

Deno.test("view: no file outside the directory, literal, encoded, double-encoded or through a link; a file inside is served", async () => {
  await Deno.symlink("/etc/passwd", `${root}/small/passwd`);
  const escapes = [
    "/files/%2e%2e/%2e%2e/etc/passwd",
    "/files/%2E%2E%2F%2E%2E%2Fetc%2Fpasswd",
    "/files/small/%2e%2e/%2e%2e/%2e%2e/etc/passwd",
    "/files/%252e%252e/etc/passwd",
    "/files/..%5c..%5cetc%5cpasswd",
    "/files/small/passwd",
    "/files/small",
    "/files/",
  ];
  for (const path of escapes) {
    const r = await app.request(path);
    assert.equal(r.status, 404, path);
    assert.doesNotMatch(await r.text(), /root:/, path);
  }
  assert.equal(await fileUnder(root, "small/passwd"), undefined, "a link out of the directory");
  assert.equal((await app.request("/files/small/eval.md")).status, 200);
  // over a real socket, with the dot segments sent as they are (a client would resolve them first)
  const stop = new AbortController();
  let url = "";
  const server = await serveView({ root, port: 0, signal: stop.signal, onListen: (u) => (url = u) });
  const { hostname, port } = new URL(url);
  assert.equal(hostname, "127.0.0.1", "loopback unless told otherwise");
  for (
    const path of ["/files/../../etc/passwd", "/files/%2e%2e/%2e%2e/etc/passwd", "/files/small/../../../etc/passwd"]
  ) {
    const conn = await Deno.connect({ hostname, port: Number(port) });
    await conn.write(new TextEncoder().encode(`GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`));
    let reply = "";
    const buf = new Uint8Array(65536);
    for (let n = await conn.read(buf); n !== null; n = await conn.read(buf)) {
      reply += new TextDecoder().decode(
        buf.subarray(0, n),
      );
    }
    conn.close();
    assert.match(reply, /^HTTP\/1\.1 404/, path);
    assert.doesNotMatch(reply, /root:/, path);
  }
  stop.abort();
  await server.finished;
});

Deno.test("serveView(): a directory that is not there, or a port in use, is a DataError naming it", async () => {
  await assert.rejects(serveView({ root: `${root}/none`, port: 0 }), /Cannot view .*\/none: no such directory/);
  const stop = new AbortController();
  let url = "";
  const first = await serveView({ root, port: 0, signal: stop.signal, onListen: (u) => (url = u) });
  const port = Number(new URL(url).port);
  await assert.rejects(serveView({ root, port }), new RegExp(`port ${port} is in use on 127\\.0\\.0\\.1`));
  stop.abort();
  await first.finished;
});

Deno.test("browseEpisodes(): an RL step's episode beside a group mate whose reward differs", async () => {
  const records = JSON.parse((await get("/api/runs/small/episodes/mempo?size=3")).text) as EpisodeRecord[];
  const b = browseEpisodes({ name: "small", rel: "small", dir: `${root}/small` }, ["mempo"], records, {
    stage: "mempo",
  });
  assert.ok(!("message" in b));
  assert.equal(b.pick.size, 3, "the last step present");
  assert.equal(b.left.index, 0);
  const mates = records.filter((r) => r.group === b.left.group && r.index !== 0);
  const differing = mates.find((r) => r.reward !== b.left.reward) ?? mates[0]!;
  assert.equal(b.right?.index, differing.index);
  assert.equal(b.indices.length, 8, "2 questions × 4 rollouts");
});
