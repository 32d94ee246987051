// bench/torch_ref.py, the PyTorch side of `deno task bench`: the same architecture as the package's bench model (its
// parameter count; tests/model/transformer_test.ts checks its logits against the package's on a checkpoint).
import assert from "node:assert/strict";
import { countParameters, modelPreset } from "../../lib/model/config.ts";
import { hasTorch, PYTHON } from "../_helpers.ts";

const script = new URL("../../bench/torch_ref.py", import.meta.url).pathname;

async function torchParams(args: string[]): Promise<number> {
  const out = await new Deno.Command(PYTHON, { args: [script, "--params-only", ...args] }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  return JSON.parse(new TextDecoder().decode(out.stdout)).params;
}

Deno.test("bench/torch_ref.py: the bench model's parameter count, 918,656, as countParameters gives it", async () => {
  if (!(await hasTorch("bench/torch_ref.py parameter count"))) return;
  const bench = await torchParams([]);
  assert.equal(bench, 918656);
  assert.equal(bench, countParameters(modelPreset("bench", 512)));
  // another shape, so the count is the architecture's and not one constant: V 40, D 32, L 2, H 2, ffn 64
  const tiny = modelPreset("tiny", 40);
  assert.equal(
    await torchParams(["--vocab", "40", "--d", "32", "--layers", "2", "--heads", "2", "--ffn", "64"]),
    21920,
  );
  assert.equal(countParameters(tiny), 21920);
});
