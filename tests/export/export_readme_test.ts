import assert from "node:assert/strict";
import { exportReadme } from "../../lib/export/export_readme.ts";

const INFO = {
  verlVersion: "0.7.0",
  source: "runs/default",
  checkpoint: "sft",
  algorithms: ["mempo", "grpo"],
  counts: { train: 2000, tests: { test_1obj: 32, test_8obj: 32 }, documents: 220 },
};

Deno.test("exportReadme() names the verl version, what to run, and the three parts of MemPO verl's agent loop lacks", () => {
  const md = exportReadme(INFO);
  assert.match(md, /^# mempo-lab experiment for verl 0\.7\.0\n/);
  assert.match(md, /pip install "verl==0\.7\.0"/);
  assert.match(md, /bash config\/run\.sh mempo\nbash config\/run\.sh grpo\n/);
  assert.match(md, /deno task serve-search <this folder> --port 8000/);
  assert.match(md, /`train\.parquet` \(2000 questions\) and the test sets test_1obj \(32\), test_8obj \(32\)/);
  assert.match(md, /the `sft` policy of runs\/default as a Hugging Face `LlamaForCausalLM` folder/);
  assert.match(md, /\*\*MemPO needs verl's agent loop extended\*\*/);
  for (
    const part of [
      "**The forced `<mem>`**",
      "**The memory context policy**",
      "**The extra scoring forwards for P_mem / P_full**",
    ]
  ) {
    assert.ok(md.includes(part), part);
  }
  assert.match(md, /memory_rewards` `\[B, K\]`/);
  assert.match(
    exportReadme({ ...INFO, checkpoint: undefined }),
    /no `model\/`: this export was made from a data directory alone/,
  );
});

Deno.test("exportReadme() says when the run's RL joined questions, which verl's loop does not", () => {
  assert.doesNotMatch(exportReadme(INFO), /joined/);
  assert.doesNotMatch(exportReadme({ ...INFO, joinShare: 0 }), /joined/);
  const md = exportReadme({ ...INFO, joinShare: 0.25 });
  assert.match(md, /\*\*This run's RL joined 25 % of its questions into longer tasks\*\* \(`rl\.joinShare`\)/);
  assert.match(md, /RL here sees the unjoined questions/);
});
