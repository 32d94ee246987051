// `deno task train`: until the training pipeline lands (issue 5), this runs the
// smallest end-to-end thing that exists: MemPO's worked example through the
// lesson math (memory reward → memory advantage → combined advantage).
import { combineAdvantages, getBackend, memoryAdvantages, memoryReward } from "../mod.ts";

console.log(
  `mempo-lab (backend ${getBackend()}): the training pipeline is not built yet; running the MemPO worked example.`,
);
const L = Math.log;
const { reward } = memoryReward({
  memAnswerLogProbs: [[L(0.12)], [L(0.73)]],
  fullAnswerLogProbs: [[L(0.35)], [L(0.68)]],
  answerMask: [[1], [1]],
});
const u = Math.sqrt(0.0162);
const adv = memoryAdvantages({
  rewards: [[null, reward[0]!, reward[1]!], [null, 0.07 + u, 0.07 - u]],
  groupIds: [0, 0],
});
const final = combineAdvantages({
  outcomeAdvantages: [0.8],
  memorySpans: [[{ start: 0, end: 2, advantage: adv[0]![1]! }, { start: 3, end: 5, advantage: adv[0]![2]! }]],
  mask: [[1, 1, 1, 1, 1, 1]],
});
console.log("memory rewards", reward.map((r) => r.toFixed(2)).join(", "));
console.log("memory advantages", adv[0]!.slice(1).map((a) => a!.toFixed(2)).join(", "));
console.log("final advantages", final[0]!.map((a) => a.toFixed(2)).join(", "));
