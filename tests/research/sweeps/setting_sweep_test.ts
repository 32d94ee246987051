import assert from "node:assert/strict";
import { readSweepRun, sweepMarkdown, sweepSettings } from "../../../research/sweeps/setting_sweep.ts";

async function runDir(config: unknown, files: Record<string, unknown>): Promise<string> {
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(`${dir}/config.json`, JSON.stringify(config));
  for (const [name, json] of Object.entries(files)) {
    await Deno.mkdir(`${dir}/${name}`.replace(/\/[^/]+$/, ""), { recursive: true });
    await Deno.writeTextFile(`${dir}/${name}`, JSON.stringify(json));
  }
  return dir;
}

const row = (agent: string, objectives: number, em: number, contextPolicy = "memory") => ({
  agent,
  contextPolicy,
  objectives,
  em,
});

Deno.test("readSweepRun(): a run's validation eval.json (memory rows only, the SFT start too) and a compare seed's record", async () => {
  const run = await runDir({ preset: "default", seed: 0, rl: { memCoef: 0.1 } }, {
    "valid/eval.json": {
      rows: [
        row("SFT", 1, 0.9, "full"),
        row("SFT", 1, 1),
        row("SFT", 8, 0.16),
        row("MemPO", 1, 1),
        row("MemPO", 8, 0.05),
      ],
    },
    "eval.json": { rows: [row("MemPO", 1, 0.2), row("MemPO", 8, 0.2)] },
  });
  assert.deepEqual(await readSweepRun(run, "rl.memCoef", "MemPO", "valid"), {
    dir: run,
    setting: "0.1",
    seed: 0, // no rl.seed: the run's seed
    em: { 1: 1, 8: 0.05 },
    sft: { 1: 1, 8: 0.16 },
  });
  assert.deepEqual((await readSweepRun(run, "rl.memCoef", "MemPO", "test")).em, { 1: 0.2, 8: 0.2 });
  const seed = await runDir({ preset: "default", seed: 0, rl: { memCoef: 0.1, seed: 3 } }, {
    "compare_eval_valid.json": {
      rows: [{ agent: "GRPO", objectives: 1, em: 0 }, { agent: "MemPO", objectives: 1, em: 0.75 }],
    },
  });
  assert.deepEqual(await readSweepRun(seed, "rl.memCoef", "MemPO", "valid"), {
    dir: seed,
    setting: "0.1",
    seed: 3,
    em: { 1: 0.75 },
  });
  // two agents: their EM per size averaged; the SFT start kept
  const both = await runDir({ preset: "default", seed: 0, rl: { klCoef: 0.01 } }, {
    "valid/eval.json": {
      rows: [
        row("SFT", 1, 1),
        row("SFT", 8, 0.2),
        row("MemPO", 1, 1),
        row("MemPO", 8, 0.05),
        row("GRPO", 1, 0.5),
        row("GRPO", 8, 0.25),
      ],
    },
  });
  const averaged = await readSweepRun(both, "rl.klCoef", ["MemPO", "GRPO"], "valid");
  assert.deepEqual(averaged, { dir: both, setting: "0.01", seed: 0, em: { 1: 0.75, 8: 0.15 }, sft: { 1: 1, 8: 0.2 } });
  const uneven = await runDir({ preset: "default", seed: 0, rl: { klCoef: 0.01 } }, {
    "valid/eval.json": { rows: [row("MemPO", 1, 1), row("MemPO", 8, 0.05), row("GRPO", 1, 0.5)] },
  });
  await assert.rejects(
    () => readSweepRun(uneven, "rl.klCoef", ["MemPO", "GRPO"], "valid"),
    /the agents MemPO, GRPO are evaluated on different sizes \(1,8 and 1\)/,
  );
  await assert.rejects(
    () => readSweepRun(seed, "rl.nope", "MemPO", "valid"),
    /config\.json has no field rl\.nope/,
  );
  await assert.rejects(
    () => readSweepRun(seed, "rl.memCoef", "PPO", "valid"),
    /no evaluation of PPO on the valid sets/,
  );
  const bad = await runDir({ preset: "default", seed: 0, rl: { memCoef: 1 } }, {
    "valid/eval.json": { rows: [row("MemPO", 1, NaN)] },
  });
  await assert.rejects(
    () => readSweepRun(bad, "rl.memCoef", "MemPO", "valid"),
    /a row of MemPO has no numeric objectives and em/,
  );
});

Deno.test("sweepSettings(): means over sizes, then seeds, by hand; the baseline's tie; refusals", () => {
  const run = (setting: string, seed: number, a: number, b: number, c: number) => ({
    dir: `runs/${setting}-${seed}`,
    setting,
    seed,
    em: { 1: a, 4: b, 8: c },
  });
  const runs = [
    run("0.1", 1, 1, 0.7, 0.1), // 0.6
    run("0.1", 0, 1, 0.8, 0.3), // 0.7
    run("0.3", 0, 1, 0.75, 0.2), // 0.65
    run("0.3", 1, 0.9, 0.75, 0.35), // 0.666…
  ];
  const result = sweepSettings(runs, { field: "rl.memCoef", agent: "MemPO", baseline: "0.1", tie: 0.005 });
  const [a, b] = result.settings;
  assert.deepEqual(a!.seeds, [0, 1]);
  assert.deepEqual(a!.perSeed.map((x) => +x.toFixed(6)), [0.7, 0.6]);
  assert.equal(+a!.mean.toFixed(6), 0.65);
  assert.deepEqual(a!.range.map((x) => +x.toFixed(6)), [0.6, 0.7]);
  assert.deepEqual(Object.fromEntries(Object.entries(a!.bySize).map(([k, v]) => [k, +v.toFixed(6)])), {
    1: 1,
    4: 0.75,
    8: 0.2,
  });
  assert.equal(+b!.mean.toFixed(6), 0.658333);
  assert.equal(result.best, "0.3");
  assert.equal(result.kept, "0.3"); // 0.6583 − 0.65 > 0.005
  assert.equal(sweepSettings(runs, { field: "f", agent: "MemPO", baseline: "0.1", tie: 0.01 }).kept, "0.1");
  assert.equal(sweepSettings(runs, { field: "f", agent: "MemPO" }).kept, "0.3");
  const md = sweepMarkdown(result);
  assert.match(md, /\| 0\.3 \| 0: 0\.650, 1: 0\.667 \| 0\.658 \| 0\.650–0\.667 \| 0\.95 \| 0\.75 \| 0\.28 \|/);
  assert.match(md, /Kept: rl\.memCoef = 0\.3: the highest mean \(0\.658\), more than 0\.005 above 0\.1's \(0\.650\)\./);
  const tied = sweepMarkdown(sweepSettings(runs, { field: "rl.memCoef", agent: "MemPO", baseline: "0.1", tie: 0.01 }));
  assert.match(tied, /Kept: rl\.memCoef = 0\.1: the highest mean, 0\.3's 0\.658, is within 0\.01 of 0\.1's 0\.650\./);
  const own = sweepMarkdown(sweepSettings(runs, { field: "rl.memCoef", agent: "MemPO", baseline: "0.3", tie: 0.01 }));
  assert.match(own, /Kept: rl\.memCoef = 0\.3: the highest mean \(0\.658\)\./);

  assert.throws(() => sweepSettings([], { field: "f", agent: "a" }), /at least one run/);
  assert.throws(
    () => sweepSettings([...runs, { dir: "x", setting: "1", seed: 0, em: { 1: 1, 4: 1 } }], { field: "f", agent: "a" }),
    /x is evaluated on 1, 4 objectives, runs\/0\.1-1 on 1, 4, 8/,
  );
  assert.throws(
    () => sweepSettings([...runs, run("0.3", 1, 0, 0, 0)], { field: "f", agent: "a" }),
    /0\.3 seed 1 is given twice/,
  );
  assert.throws(
    () => sweepSettings(runs, { field: "f", agent: "a", baseline: "1" }),
    /--baseline 1 is none of the settings run \(0\.1, 0\.3\)/,
  );
});

Deno.test("deno task sweep: prints the table, writes it with --out, refuses a run without the split's evaluation in one line", async () => {
  const rows = (em: number) => [row("SFT", 1, 0.5), row("MemPO", 1, em)];
  const a = await runDir({ preset: "default", seed: 0, rl: { memCoef: 0.1 } }, {
    "valid/eval.json": { rows: rows(0.5) },
  });
  const b = await runDir({ preset: "default", seed: 0, rl: { memCoef: 0.3, seed: 1 } }, {
    "valid/eval.json": { rows: rows(0.75) },
  });
  const out = `${await Deno.makeTempDir()}/sweep.md`;
  const sweep = new URL("../../../research/sweep.ts", import.meta.url).pathname;
  const run = (...args: string[]) =>
    new Deno.Command(Deno.execPath(), { args: ["run", "-A", sweep, ...args] }).output();
  const ok = await run(a, b, "--baseline", "0.1", "--tie", "0.3", "--out", out);
  const text = new TextDecoder().decode(ok.stdout);
  assert.equal(ok.code, 0, new TextDecoder().decode(ok.stderr));
  assert.match(text, /\| 0\.3 \| 1: 0\.750 \| 0\.750 \|/);
  assert.match(text, /Kept: rl\.memCoef = 0\.1: the highest mean, 0\.3's 0\.750, is within 0\.3 of 0\.1's 0\.500\./);
  assert.match(text, /The SFT start \(memory context\): 0\.500\./);
  assert.equal(await Deno.readTextFile(out), text.slice(0, text.indexOf("\nwrote ")));
  assert.equal(JSON.parse(await Deno.readTextFile(`${out}.json`)).kept, "0.1");
  const agents = await run(a, b, "--agent", "MemPO,SFT");
  assert.equal(agents.code, 0, new TextDecoder().decode(agents.stderr));
  assert.match(
    new TextDecoder().decode(agents.stdout),
    /# MemPO and SFT over `rl\.memCoef`[^]*\| 0\.3 \| 1: 0\.625 \|/,
  );
  const empty = await run(a, "--agent", "MemPO,");
  assert.equal(empty.code, 2);
  assert.match(new TextDecoder().decode(empty.stderr), /--agent names an empty agent: "MemPO,"/);
  const bad = await run(a, `${b}/nothing`);
  const err = new TextDecoder().decode(bad.stderr);
  assert.equal(bad.code, 1);
  assert.match(err, /nothing\/config\.json/);
  assert.doesNotMatch(err, /\n\s+at /);
});
