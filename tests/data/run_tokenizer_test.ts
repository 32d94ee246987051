import assert from "node:assert/strict";
import { DataError } from "../../lib/errors.ts";
import { checkRunTokenizer } from "../../lib/data/run_tokenizer.ts";
import { buildTokenizer, tokenizerToJson } from "../../lib/text/tokenizer.ts";

Deno.test("checkRunTokenizer(): the run's tokenizer must be the data's; none saved is not checked; each refusal names the action and its remedy", async () => {
  const run = await Deno.makeTempDir();
  const data = await Deno.makeTempDir();
  try {
    const words = (text: string) => tokenizerToJson(buildTokenizer([text]));
    const refused = (message: RegExp) => (e: Error) => e instanceof DataError && message.test(e.message);
    await assert.rejects(
      checkRunTokenizer(run, data, "resume"),
      refused(/^Cannot resume .*: cannot read .*tokenizer\.json/),
    );
    await Deno.writeTextFile(`${data}/tokenizer.json`, words("a b"));
    // a run saved before runs kept their tokenizer: the data's is returned, unchecked
    assert.equal(await checkRunTokenizer(run, data, "export"), words("a b"));
    await Deno.writeTextFile(`${run}/tokenizer.json`, words("a b"));
    assert.equal(await checkRunTokenizer(run, data, "evaluate"), words("a b"));
    await Deno.writeTextFile(`${run}/tokenizer.json`, words("a c"));
    await assert.rejects(
      checkRunTokenizer(run, data, "resume"),
      refused(/^Cannot resume .*tokenizer\.json differs from the run's tokenizer\.json .*train the run again$/),
    );
    await assert.rejects(
      checkRunTokenizer(run, data, "export"),
      refused(/^Cannot export .*differs from the run's tokenizer\.json .*pass the run's data with --data$/),
    );
    await Deno.writeTextFile(`${run}/tokenizer.json`, "{ not json");
    await assert.rejects(
      checkRunTokenizer(run, data, "evaluate"),
      refused(/^Cannot evaluate .*: .*\/tokenizer\.json is not valid JSON \(/),
    );
    await Deno.writeTextFile(`${run}/tokenizer.json`, '{"model": {"type": "BPE"}}');
    await assert.rejects(
      checkRunTokenizer(run, data, "evaluate"),
      refused(/^Cannot evaluate .*: its tokenizer\.json is damaged \(Invalid tokenizer\.json: model\.type/),
    );
    // a run's tokenizer.json that cannot be read is not taken for a missing one
    await Deno.remove(`${run}/tokenizer.json`);
    await Deno.mkdir(`${run}/tokenizer.json`);
    await assert.rejects(
      checkRunTokenizer(run, data, "export"),
      refused(/^Cannot export .*cannot read its tokenizer\.json/),
    );
  } finally {
    await Deno.remove(run, { recursive: true });
    await Deno.remove(data, { recursive: true });
  }
});
