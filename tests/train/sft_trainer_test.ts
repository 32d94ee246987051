import assert from "node:assert/strict";
import { modelPreset } from "../../lib/model/config.ts";
import { createModel, trainableVariables } from "../../lib/model/params.ts";
import { createAdamW } from "../../lib/optim/adamw.ts";
import { trainSft } from "../../lib/train/sft_trainer.ts";

const config = { steps: 12, batchSize: 3, lr: 1e-2, warmupSteps: 2, demos: 1, dropProbability: 0 };
const sequences = [
  { tokens: [1, 2, 3, 4, 5, 6], lossMask: [0, 0, 1, 1, 1, 1] },
  { tokens: [7, 8, 9], lossMask: [0, 1, 1] },
  { tokens: [2, 4, 6, 8, 10], lossMask: [0, 1, 1, 1, 1] },
];

Deno.test("trainSft(): split into two runs (resume) equals one run; micro-batching does not change the result", async () => {
  const run = async (parts: [number, number][], maxTokensPerMicroBatch?: number) => {
    const model = createModel(modelPreset("tiny", 12), { seed: 9 });
    const optimizer = createAdamW(trainableVariables(model), { lr: config.lr });
    const log = [];
    for (const [startStep, endStep] of parts) {
      log.push(
        ...await trainSft({
          model,
          optimizer,
          sequences,
          config,
          seed: 4,
          padId: 0,
          startStep,
          endStep,
          maxTokensPerMicroBatch,
        }),
      );
    }
    const w = Array.from(model.weights.get("model.norm.weight")!.dataSync());
    optimizer.dispose();
    model.dispose();
    return { log, w };
  };
  const whole = await run([[0, 12]]);
  const split = await run([[0, 5], [5, 12]]);
  assert.deepEqual(split.log.map((r) => r.loss), whole.log.map((r) => r.loss));
  assert.deepEqual(split.w, whole.w);
  const micro = await run([[0, 12]], 6);
  micro.log.forEach((r, i) => assert.ok(Math.abs(r.loss - whole.log[i]!.loss) < 1e-4));
  assert.ok(whole.log.at(-1)!.loss < whole.log[0]!.loss);
  assert.equal(whole.log.length, 12);
});
