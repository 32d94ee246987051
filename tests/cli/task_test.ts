// The tasks' command line: parsing, --help, the one error path, and every task run with bad input
// (exit code 2 for usage, 1 for files; one message, no stack trace).
import assert from "node:assert/strict";
import { executeTask, parseTaskArgs, type SharedFlagSpec, taskHelp } from "../../lib/cli/task.ts";
import { DataError, UsageError } from "../../lib/errors.ts";
import { buildTokenizer, tokenizerToJson } from "../../lib/text/tokenizer.ts";
import { taskStderr } from "../_subprocess.ts";

const SPEC = {
  name: "deno task x",
  summary: "does x.",
  positionals: [{ name: "RUN", help: "a run" }],
  flags: {
    reps: { type: "integer", min: 1, default: 5, help: "repetitions" },
    rate: { type: "number", help: "a rate" },
    mode: { type: "string", choices: ["a", "b"], default: "a", help: "the mode" },
    torch: { type: "boolean", default: true, help: "use torch" },
    quiet: { type: "boolean", help: "say less" },
  },
} as const;

Deno.test("parseTaskArgs(): types, defaults, --no-NAME, choices, ranges and positionals", () => {
  const a = parseTaskArgs(SPEC, ["runs/x", "--reps=3", "--rate", "0.5", "--mode", "b", "--no-torch", "--quiet"]);
  // every task also takes the shared flags (SHARED_FLAGS: --threads)
  assert.deepEqual(a.flags, {
    reps: 3,
    rate: 0.5,
    mode: "b",
    torch: false,
    quiet: true,
    help: false,
    threads: undefined,
  });
  assert.deepEqual(a.positionals, ["runs/x"]);
  const d = parseTaskArgs(SPEC, ["runs/x"]);
  assert.deepEqual(d.flags, {
    reps: 5,
    rate: undefined,
    mode: "a",
    torch: true,
    quiet: false,
    help: false,
    threads: undefined,
  });
  assert.equal((parseTaskArgs(SPEC, ["runs/x", "--threads", "3"]).flags as Record<string, unknown>).threads, 3);
  const bad: [string[], RegExp][] = [
    [["r", "--reps", "0"], /^--reps must be an integer ≥ 1, current value is "0"$/],
    [["r", "--reps", "2.5"], /^--reps must be an integer ≥ 1, current value is "2\.5"$/],
    [["r", "--reps", ""], /^--reps must be an integer ≥ 1, current value is ""$/],
    [["r", "--rate", "1e999"], /^--rate must be a number, current value is "1e999"$/],
    [["r", "--mode", "c"], /^--mode must be one of a, b, current value is "c"$/],
    [["r", "--bogus"], /^Unknown option '--bogus'$/],
    [["r", "--reps"], /argument missing/],
    [[], /^missing argument RUN$/],
    [["r", "s"], /^unexpected argument "s"$/],
  ];
  for (const [args, message] of bad) {
    assert.throws(() => parseTaskArgs(SPEC, args), (e: Error) => e instanceof UsageError && message.test(e.message));
  }
  assert.equal(parseTaskArgs(SPEC, ["--help"]).flags.help, true, "--help needs no positional");
});

Deno.test("taskHelp(): every flag with its placeholder, meaning, choices and default", () => {
  const help = taskHelp(SPEC);
  assert.match(help, /^deno task x: does x\.\n\nusage: deno task x RUN \[flags\]\n\narguments:\n {2}RUN +a run\n/);
  assert.match(help, /\n {2}--reps N +repetitions \(≥ 1; default: 5\)\n/);
  assert.match(help, /\n {2}--rate X +a rate\n/);
  assert.match(help, /\n {2}--mode VALUE +the mode \(one of a, b; default: a\)\n/);
  assert.match(help, /\n {2}--torch +use torch \(default: true; --no-torch turns it off\)\n/);
  assert.match(help, /\n {2}--quiet +say less\n/);
  assert.match(help, /\n {2}-h, --help +show this help and exit\n/);
});

Deno.test("executeTask(): one error path; a shared flag reaches every task through its hook", async () => {
  const lines: string[] = [];
  const io = { out: (t: string) => lines.push(`out: ${t}`), err: (t: string) => lines.push(`err: ${t}`) };
  assert.equal(await executeTask(SPEC, () => 7, ["r"], io), 7);
  assert.equal(await executeTask(SPEC, () => {}, ["r"], io), 0);
  assert.equal(
    await executeTask(SPEC, () => Promise.reject(new UsageError("--a and --b exclude each other")), ["r"], io),
    2,
  );
  assert.equal(await executeTask(SPEC, () => Promise.reject(new DataError("runs/x/sft is damaged")), ["r"], io), 1);
  assert.equal(await executeTask(SPEC, () => 9, ["--help"], io), 0, "--help does not run the task");
  assert.deepEqual(lines.slice(0, 2), [
    "err: error: --a and --b exclude each other\nusage: deno task x RUN [flags] (--help lists every flag)",
    "err: error: runs/x/sft is damaged",
  ]);
  assert.match(lines[2]!, /^out: deno task x: does x\./);
  // an unexpected error is not an expected failure: it leaves with its stack trace
  await assert.rejects(executeTask(SPEC, () => Promise.reject(new TypeError("a bug")), ["r"], io), TypeError);
  // a flag shared by every task: parsed, listed by --help and applied before the body
  const applied: unknown[] = [];
  const shared: Record<string, SharedFlagSpec> = {
    threads: { type: "integer", min: 1, default: 1, help: "wasm threads", apply: (n) => void applied.push(n) },
  };
  const seen = await executeTask(
    SPEC,
    ({ flags }) => (flags as Record<string, unknown>).threads as number,
    [
      "r",
      "--threads",
      "4",
    ],
    io,
    shared,
  );
  assert.equal(seen, 4);
  assert.deepEqual(applied, [4]);
  assert.equal(await executeTask(SPEC, () => 0, ["r", "--threads", "0"], io, shared), 2);
  assert.match(lines.at(-1)!, /--threads must be an integer ≥ 1, current value is "0"/);
  assert.match(taskHelp(SPEC, shared), /\n {2}--threads N +wasm threads \(≥ 1; default: 1\)\n/);
  assert.throws(
    () => taskHelp(SPEC, { reps: shared.threads! }),
    /flag --reps is shared by every task, declare it once/,
  );
});

// Every task with bad input, as a user would run it: the exit code, one clear message, no stack trace.
const root = new URL("../../", import.meta.url).pathname;
const work = await Deno.makeTempDir();
const file = async (name: string, text: string) => {
  await Deno.writeTextFile(`${work}/${name}`, text);
  return `${work}/${name}`;
};
const json = {
  bad: await file("bad.json", '{"rl": {"lr": 1e-4'),
  list: await file("list.json", "[1, 2]"),
  nested: await file("nested.json", '{"data": {"sizes": {"films": 4, "cats": 2}}}'),
  infinite: await file("infinite.json", '{"rl": {"lr": 1e999}}'),
  sizes: await file("sizes.json", '{"data": {"sizes": {"countries": 5, "cities": 4}}}'),
  nullSection: await file("null.json", '{"rl": null}'),
  dataDir: await file("datadir.json", '{"dataDir": 3}'),
  joined: await file("joined.json", '{"data": {"questionOnce": false}}'),
};
const notRun = await Deno.makeTempDir();
await Deno.writeTextFile(`${notRun}/config.json`, '{"preset": "quick", "rl": {"steps": -1}}');
// a run whose config is valid but whose metrics.jsonl has a bad line before its last (not a torn append)
const tornRun = await Deno.makeTempDir();
await Deno.writeTextFile(`${tornRun}/config.json`, '{"preset": "quick"}');
await Deno.writeTextFile(`${tornRun}/metrics.jsonl`, '{"stage": "sft", "st\n{"stage": "sft", "step": 1}\n');

// a run whose saved tokenizer is not its data's (the data was rebuilt since training)
const tokData = await Deno.makeTempDir();
const tokRun = await Deno.makeTempDir();
await Deno.writeTextFile(`${tokData}/tokenizer.json`, tokenizerToJson(buildTokenizer(["a"])));
await Deno.writeTextFile(`${tokRun}/tokenizer.json`, tokenizerToJson(buildTokenizer(["b"])));
await Deno.writeTextFile(`${tokRun}/config.json`, JSON.stringify({ preset: "quick", dataDir: tokData }));

// every JSON file a task reads, damaged (not JSON): each task names the file and exits 1
const damaged = await Deno.makeTempDir();
const runWith = async (name: string, files: Record<string, string>) => {
  await Deno.mkdir(`${damaged}/${name}`);
  for (const [f, text] of Object.entries(files)) await Deno.writeTextFile(`${damaged}/${name}/${f}`, text);
  return `${damaged}/${name}`;
};
const NOT_JSON = '{"preset": "quick", "rl": {';
const badConfigRun = await runWith("config", { "config.json": NOT_JSON });
const badEvalRun = await runWith("eval", { "config.json": '{"preset": "quick"}', "eval.json": NOT_JSON });
const tokenizer = tokenizerToJson(buildTokenizer(["a"]));
const badManifest = await runWith("manifest-data", { "manifest.json": NOT_JSON, "tokenizer.json": tokenizer });
const badDataTokenizer = await runWith("tokenizer-data", {
  "manifest.json": '{"test": {}}',
  "tokenizer.json": NOT_JSON,
});
// a new run on that data: refused before its directory is made (the check below finds no `new`)
const damagedData = await file("damaged-data.json", JSON.stringify({ dataDir: badManifest }));
const onData = (name: string, dataDir: string) =>
  runWith(name, { "config.json": JSON.stringify({ preset: "quick", dataDir }) });
const badManifestRun = await onData("manifest", badManifest);
const badDataTokenizerRun = await onData("tokenizer", badDataTokenizer);
const badRunTokenizer = await runWith("run-tokenizer", {
  "config.json": JSON.stringify({ preset: "quick", dataDir: tokData }),
  "tokenizer.json": NOT_JSON,
});
const notJson = (file: string) => new RegExp(`^error: ${file.replaceAll(".", "\\.")} is not valid JSON \\(`, "m");

const CASES: [string, string[], number, RegExp, Record<string, string>?][] = [
  // [task, args, exit code, message, environment]
  ["tools/train.ts", ["--bogus"], 2, /^error: Unknown option '--bogus'\nusage: deno task train \[flags\]/],
  ["tools/train.ts", ["--seed=-1"], 2, /--seed must be an integer ≥ 0, current value is "-1"/],
  ["tools/train.ts", ["--sft-seed", "x"], 2, /--sft-seed must be an integer ≥ 0, current value is "x"/],
  [
    "tools/train.ts",
    ["--preset", "huge"],
    2,
    /--preset must be one of default, quick, current value is "huge"/,
  ],
  [
    "tools/train.ts",
    ["--algo", "dpo"],
    2,
    /rl\.algorithms\[0\] must be one of ppo, grpo, mempo, current value is "dpo"/,
  ],
  ["tools/train.ts", ["--resume", "a", "--from", "b"], 2, /--resume and --from exclude each other/],
  [
    "tools/train.ts",
    ["--config", `${work}/missing.json`],
    1,
    /Cannot read --config file .*missing\.json: no such file/,
  ],
  ["tools/train.ts", ["--config", json.bad], 1, /--config file .*bad\.json is not valid JSON \(/],
  [
    "tools/train.ts",
    ["--config", json.list],
    2,
    /list\.json must hold a JSON object of config fields, current value is \[1,2\]/,
  ],
  ["tools/train.ts", ["--config", json.nested], 2, /Invalid config: unknown field data\.sizes\.cats/],
  ["tools/train.ts", ["--config", json.infinite], 2, /rl\.lr must be > 0, current value is Infinity/],
  ["tools/train.ts", ["--config", json.sizes], 2, /data\.sizes: cities \(4\) must be ≥ countries \(5\)/],
  ["tools/train.ts", ["--config", json.nullSection], 2, /rl must be an object of fields, current value is null/],
  ["tools/train.ts", ["--config", json.dataDir], 2, /dataDir must be a path \(a string\), current value is 3/],
  [
    "tools/train.ts",
    ["--config", json.joined],
    2,
    /sft\.joinShare > 0 needs data\.questionOnce .*sft\.joinShare 0\.5, data\.questionOnce false/,
  ],
  ["tools/train.ts", ["--resume", `${work}/nothing`], 1, /Cannot read .*nothing\/config\.json: no such file/],
  ["tools/train.ts", ["--resume", notRun], 1, /config\.json: Invalid config: rl\.steps must be an integer ≥ 0/],
  ["tools/train.ts", ["--from", notRun, "--out", `${work}/b`], 1, /config\.json: Invalid config: rl\.steps/],
  // a new run where one is: kept, unless --overwrite
  [
    "tools/train.ts",
    ["--preset", "quick", "--out", tornRun],
    1,
    /Cannot start a run in .*: it holds a run \(metrics\.jsonl\)\. Continue it with --resume .*, write the new one elsewhere with --out, or replace it with --overwrite/,
  ],
  ["tools/train.ts", ["--resume", tornRun, "--overwrite"], 2, /--resume continues a run: --overwrite does not apply/],
  ["tools/eval.ts", [], 2, /^error: missing argument RUN\nusage: deno task eval RUN \[flags\]/],
  ["tools/eval.ts", ["a", "b"], 2, /unexpected argument "b"/],
  ["tools/eval.ts", [`${work}/nothing`], 1, /Cannot read .*nothing\/config\.json: no such file/],
  ["tools/eval.ts", [notRun], 1, /config\.json: Invalid config: rl\.steps must be an integer ≥ 0, current value is -1/],
  ["tools/eval.ts", [notRun, "--split", "fit"], 2, /--split must be one of test, valid, train/],
  ["tools/data.ts", ["--preset", "huge"], 2, /--preset must be one of default, quick/],
  ["tools/data.ts", ["--seed", "1.5"], 2, /--seed must be an integer ≥ 0, current value is "1\.5"/],
  ["tools/notebooks.ts", ["--bogus"], 2, /Unknown option '--bogus'/],
  ["tools/test.ts", ["--filter"], 2, /Option '--filter <value>' argument missing/],
  ["research/lookup_probe.ts", [notRun, "--policy", "dpo"], 2, /--policy must be one of sft, ppo, grpo, mempo/],
  ["research/lookup_probe.ts", [`${work}/nothing`], 1, /Cannot read .*nothing\/config\.json/],
  ["research/lookup_probe.ts", [tokRun], 1, /Cannot evaluate .*differs from the run's tokenizer\.json/],
  ["research/recall_probe.ts", [`${work}/nothing`], 1, /Cannot read .*nothing\/config\.json/],
  ["research/recall_probe.ts", [notRun, "--count", "0"], 2, /--count must be an integer ≥ 1, current value is "0"/],
  ["tools/memory_profile.ts", [tokRun], 1, /Cannot evaluate .*differs from the run's tokenizer\.json/],
  ["tools/memory_profile.ts", [notRun, "--steps", "0"], 2, /--steps must be an integer ≥ 1, current value is "0"/],
  ["tools/memory_profile.ts", [notRun, "--pool", "episode"], 2, /--pool must be one of question, turn/],
  ["tools/eval.ts", [tornRun], 1, /metrics\.jsonl line 1 is not JSON/],
  ["bench/bench.ts", ["--reps", "0"], 2, /--reps must be an integer ≥ 1/],
  ["bench/bench.ts", ["--backend", "metal"], 2, /--backend must be one of wasm, cpu, webgpu/],
  ["bench/profile.ts", ["--shapes", "ten"], 2, /--shapes must be an integer ≥ 0, current value is "ten"/],
  ["bench/profile.ts", ["--workload", "decode"], 2, /--workload must be one of train, score, generate/],
  ["tools/compare.ts", [], 2, /^error: missing argument RUN\nusage: deno task compare RUN \[flags\]/],
  ["tools/compare.ts", [notRun, "--seeds", "a"], 2, /--seeds must be non-negative integers separated by commas/],
  ["tools/compare.ts", [notRun, "--resamples", "0"], 2, /--resamples must be an integer ≥ 1, current value is "0"/],
  ["tools/compare.ts", [notRun, "--split", "fit"], 2, /--split must be one of test, valid, train/],
  ["tools/compare.ts", [`${work}/nothing`], 1, /Cannot read .*nothing\/config\.json: no such file/],
  ["tools/compare.ts", [notRun], 1, /config\.json: Invalid config: rl\.steps must be an integer ≥ 0/],
  ["tools/export_verl.ts", ["--bogus"], 2, /^error: Unknown option '--bogus'\nusage: deno task export-verl \[RUN\]/],
  ["tools/export_verl.ts", [notRun], 2, /--out DIR is required/],
  ["tools/export_verl.ts", ["--out", `${work}/x`], 2, /give a run directory or --data DIR/],
  [
    "tools/export_verl.ts",
    [notRun, "--out", `${work}/x`, "--checkpoint", "dpo"],
    2,
    /--checkpoint must be one of sft, ppo, grpo, mempo/,
  ],
  [
    "tools/export_verl.ts",
    [tornRun, "--out", `${work}/x`, "--checkpoint", "ppo"],
    2,
    /--checkpoint must be one of sft, mempo, grpo \(the run's stages\), current value is "ppo"/,
  ],
  [
    "tools/export_verl.ts",
    [`${work}/nothing`, "--out", `${work}/x`],
    1,
    /Cannot read .*nothing\/config\.json: no such file/,
  ],
  ["tools/export_verl.ts", [notRun, "--out", `${work}/x`], 1, /config\.json: Invalid config: rl\.steps/],
  ["tools/serve_search.ts", [], 2, /^error: missing argument DIR\nusage: deno task serve-search DIR \[flags\]/],
  ["tools/serve_search.ts", [work, "--port=-1"], 2, /--port must be an integer ≥ 0, current value is "-1"/],
  [
    "tools/serve_search.ts",
    [work, "--port", "65536"],
    2,
    /--port must be an integer in \[0, 65535\], current value is 65536/,
  ],
  ["tools/serve_search.ts", [work, "--topk", "0"], 2, /--topk must be an integer ≥ 1/],
  ["tools/serve_search.ts", [`${work}/nothing`], 1, /no corpus in .*nothing/],
  // damaged JSON files: the file named, its parser's complaint, exit 1
  ["tools/eval.ts", [badConfigRun], 1, notJson(`${badConfigRun}/config.json`)],
  ["tools/train.ts", ["--resume", badConfigRun], 1, notJson(`${badConfigRun}/config.json`)],
  ["tools/compare.ts", [badConfigRun], 1, notJson(`${badConfigRun}/config.json`)],
  [
    "tools/eval.ts",
    [badEvalRun],
    1,
    /^error: Cannot keep the training times: .*\/eval\/eval\.json is not valid JSON \(/,
  ],
  ["tools/eval.ts", [badManifestRun], 1, /manifest-data\/manifest\.json is not valid JSON \(.*\); rebuild it with/],
  [
    "tools/train.ts",
    ["--preset", "quick", "--config", damagedData, "--out", `${work}/new`],
    1,
    /manifest-data\/manifest\.json is not valid JSON \(.*\); delete it, and the data is built again/,
  ],
  ["tools/eval.ts", [badDataTokenizerRun], 1, /tokenizer-data\/tokenizer\.json is not valid JSON \(.*\); rebuild it/],
  [
    "tools/eval.ts",
    [badRunTokenizer],
    1,
    /^error: Cannot evaluate .*: .*run-tokenizer\/tokenizer\.json is not valid JSON/,
  ],
  ["tools/view.ts", [`${work}/nothing`], 1, /Cannot view .*nothing: no such directory/],
  ["tools/view.ts", [work, "--port", "65536"], 2, /--port must be an integer in \[0, 65535\], current value is 65536/],
  ["tools/view.ts", [work, "b"], 2, /^error: unexpected argument "b"\nusage: deno task view \[DIR\] \[flags\]/],
  // a bad MEMPO_THREADS, read when lib/tf.ts is imported: a usage error like a bad --threads, not a stack trace
  ["tools/train.ts", ["--preset", "quick"], 2, /MEMPO_THREADS must be an integer ≥ 1, current value is "two"/, {
    MEMPO_THREADS: "two",
  }],
  [
    "tools/eval.ts",
    [`${work}/nothing`],
    2,
    /^warning: .*\nerror: MEMPO_THREADS must be an integer ≥ 1, current value is "0"/,
    { MEMPO_THREADS: "0" },
  ],
  // --threads overrides the variable
  ["tools/eval.ts", [`${work}/nothing`, "--threads", "1"], 1, /Cannot read .*nothing\/config\.json/, {
    MEMPO_THREADS: "two",
  }],
];

Deno.test("every task: bad flags, configs and files exit 2 or 1 with one message and no stack trace, and write nothing", async () => {
  const run = async ([task, args, , , env]: (typeof CASES)[number]) => {
    const r = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", `${root}${task}`, ...args],
      cwd: work,
      env: { NO_COLOR: "1", ...env },
    }).output();
    // the runtime's own lines (downloads, the node_modules lock) are not the task's
    const err = taskStderr(r.stderr);
    return { code: r.code, err };
  };
  const results: { code: number; err: string }[] = [];
  for (let i = 0; i < CASES.length; i += 4) results.push(...await Promise.all(CASES.slice(i, i + 4).map(run)));
  for (const [i, [task, args, code, message]] of CASES.entries()) {
    const { code: got, err } = results[i]!;
    const what = `${task} ${args.join(" ")}: ${err}`;
    assert.equal(got, code, what);
    assert.match(err, message, what);
    assert.doesNotMatch(err, /\n\s+at |Stack backtrace|Uncaught/, what);
    assert.equal(err.trim().split("\n").filter((l) => l.startsWith("error:")).length, 1, what);
  }
  // refused before anything was written: no run directory, no data directory
  const left = [...Deno.readDirSync(work)].map((e) => e.name).sort();
  assert.deepEqual(left, [...Object.values(json), damagedData].map((p) => p.split("/").at(-1)!).sort());
});

Deno.test("every task: --help describes each flag and exits 0", async () => {
  const tasks = [
    "tools/train.ts",
    "tools/eval.ts",
    "tools/data.ts",
    "tools/notebooks.ts",
    "tools/test.ts",
    "research/lookup_probe.ts",
    "research/recall_probe.ts",
    "research/diagnose.ts",
    "research/sweep.ts",
    "tools/memory_profile.ts",
    "tools/compare.ts",
    "tools/export_verl.ts",
    "tools/serve_search.ts",
    "tools/view.ts",
    "bench/bench.ts",
    "bench/profile.ts",
  ];
  for (const task of tasks) {
    const r = await new Deno.Command(Deno.execPath(), { args: ["run", "-A", `${root}${task}`, "--help"] }).output();
    const out = new TextDecoder().decode(r.stdout);
    assert.equal(r.code, 0, task);
    assert.match(out, /^\S.*: .+\n\nusage: /, task);
    assert.match(out, /\n {2}-h, --help +show this help and exit\n/, task);
  }
  const train = new TextDecoder().decode(
    (await new Deno.Command(Deno.execPath(), { args: ["run", "-A", `${root}tools/train.ts`, "--help"] }).output())
      .stdout,
  );
  for (
    const flag of [
      "preset",
      "algo",
      "backend",
      "seed",
      "sft-seed",
      "name",
      "out",
      "config",
      "resume",
      "from",
      "help-config",
    ]
  ) {
    assert.match(train, new RegExp(`\\n  --${flag}\\b`), flag);
  }
  assert.match(
    train,
    /--seed N +seed of the world, SFT and RL \(sft.seed, rl.seed: of one stage alone\) \(≥ 0; default: 0\)/,
  );
  // the tools that parsed flags by hand: every flag with its default, and the shared --threads
  const help = async (task: string) =>
    new TextDecoder().decode(
      (await new Deno.Command(Deno.execPath(), { args: ["run", "-A", `${root}${task}`, "--help"] }).output()).stdout,
    );
  const tools: [string, RegExp[]][] = [
    ["tools/compare.ts", [
      /\n {2}--seeds LIST +RL seeds, comma-separated \(default: 0,1,2\)\n/,
      /\n {2}--objectives LIST +.*\(default: every test set of the run\)\n/,
      /\n {2}--resamples N +bootstrap resamples \(≥ 1; default: 10000\)\n/,
    ]],
    ["tools/export_verl.ts", [
      /\n {2}--out DIR +/,
      /\n {2}--checkpoint NAME +.*\(one of sft, ppo, grpo, mempo; default: sft/,
      /\n {2}--data DIR +.*\(default: the run's dataDir\)\n/,
      /\n {2}--preset NAME +.*\(one of default, quick; default: default\)\n/,
    ]],
    ["tools/serve_search.ts", [
      /\n {2}--host HOST +.*\(default: 127\.0\.0\.1\)\n/,
      /\n {2}--port N +.*\(≥ 0; default: 8000\)\n/,
      /\n {2}--topk N +.*\(≥ 1; default: 3\)\n/,
    ]],
    ["tools/view.ts", [
      /\n {2}--host HOST +.*\(default: 127\.0\.0\.1\)\n/,
      /\n {2}--port N +.*\(≥ 0; default: 8000\)\n/,
    ]],
  ];
  for (const [task, flags] of tools) {
    const text = await help(task);
    for (const re of [...flags, /\n {2}--threads N +/]) assert.match(text, re, task);
  }
  const config = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `${root}tools/train.ts`, "--help-config"],
  })
    .output();
  assert.equal(config.code, 0);
  assert.match(
    new TextDecoder().decode(config.stdout),
    /\n {2}rl\.groupSize {2}integer ≥ 1 {2}default 8 \(quick 4\)\n {6}G, rollouts/,
  );
});

Deno.test("SHARED_FLAGS.threads: the wasm backend restarts on that many threads, and child processes inherit it", async () => {
  const { SHARED_FLAGS } = await import("../../lib/cli/task.ts");
  const { setBackend, wasmThreads } = await import("../../lib/backend.ts");
  const before = { threads: wasmThreads(), env: Deno.env.get("MEMPO_THREADS") };
  try {
    await SHARED_FLAGS.threads!.apply!(undefined); // not given: nothing changes
    assert.equal(wasmThreads(), before.threads);
    const other = before.threads === 1 ? 2 : 1;
    await SHARED_FLAGS.threads!.apply!(other);
    assert.equal(wasmThreads(), other);
    assert.equal(Deno.env.get("MEMPO_THREADS"), String(other));
  } finally {
    if (before.env === undefined) Deno.env.delete("MEMPO_THREADS");
    else Deno.env.set("MEMPO_THREADS", before.env);
    await setBackend("wasm", { threads: before.threads });
  }
});
