// A release folder whose JSON files are damaged: each refused as a DataError naming the file (one reader, lib/json_file.ts).
import assert from "node:assert/strict";
import { DataError } from "../../lib/errors.ts";
import { buildTokenizer } from "../../lib/text/tokenizer.ts";
import { modelPreset } from "../../lib/model/config.ts";
import { createModel } from "../../lib/model/params.ts";
import { resolveConfig } from "../../lib/config/experiment.ts";
import { readHfModel } from "../../lib/export/hf_model.ts";
import { verifyRelease, writeRelease } from "../../lib/release/release.ts";

const refused = (message: RegExp) => (e: Error) => e instanceof DataError && message.test(e.message);

Deno.test("a release's manifest.json missing or not JSON, and its config.json not JSON: refused naming the file", async () => {
  const tok = buildTokenizer(["a b c"]);
  const m = createModel(modelPreset("tiny", tok.size), { seed: 1 });
  const dir = await Deno.makeTempDir();
  try {
    const provenance = {
      command: "deno task train --stage sft",
      commit: "abc1234",
      seed: 0,
      sftSteps: 2,
      config: resolveConfig("quick"),
      validation: [{ objectives: 1, em: 0.5 }],
    };
    await writeRelease(dir, m, tok, provenance);
    const manifest = await Deno.readTextFile(`${dir}/manifest.json`);
    await Deno.writeTextFile(`${dir}/manifest.json`, manifest.slice(0, 40)); // cut short, as a kill or a bad copy leaves it
    await assert.rejects(
      verifyRelease(dir),
      refused(/^Cannot use the released SFT policy in .*: .*\/manifest\.json is not valid JSON \(.+\); nothing was/),
    );
    await Deno.remove(`${dir}/manifest.json`);
    await assert.rejects(verifyRelease(dir), refused(/: no manifest\.json \(restore the folder with git checkout/));
    // the Hugging Face folder's own reader: config.json through the same reader
    await Deno.writeTextFile(`${dir}/config.json`, '{"model_type": "llama",');
    await assert.rejects(readHfModel(dir), refused(/^\/.*\/config\.json is not valid JSON \(/));
  } finally {
    m.dispose();
    await Deno.remove(dir, { recursive: true });
  }
});
