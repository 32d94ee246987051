import assert from "node:assert/strict";
import { dynamicSampling } from "../../lib/train/dynamic_sampling.ts";
import { createRng } from "../../lib/random.ts";

type Ep = { reward: number; task: { groupId: number } };
const ep = (groupId: number, reward: number): Ep => ({ reward, task: { groupId } });

// the slow reference: every group of every batch in order, kept when its rewards differ, until `groups`
function reference(batches: Ep[][], groups: number, maxBatches: number) {
  const kept: number[] = [];
  let used = 0;
  for (const batch of batches.slice(0, maxBatches)) {
    if (kept.length >= groups) break;
    used++;
    for (const id of new Set(batch.map((e) => e.task.groupId))) {
      const r = batch.filter((e) => e.task.groupId === id).map((e) => e.reward);
      if (kept.length < groups && Math.min(...r) !== Math.max(...r)) kept.push(id);
    }
  }
  return { kept, used };
}

Deno.test("dynamicSampling(): the groups kept and the batches drawn match a slow loop on random batches", async () => {
  const rng = createRng(11);
  for (let trial = 0; trial < 200; trial++) {
    const q = 1 + rng.int(4), g = 2 + rng.int(3), groups = 1 + rng.int(5), maxBatches = 1 + rng.int(5);
    const p = rng.next(); // the chance of a right answer: near 0 or 1 most groups are equal
    const batches = Array.from(
      { length: 6 },
      (_, b) => Array.from({ length: q * g }, (_, i) => ep(b * q + Math.floor(i / g), rng.next() < p ? 1 : 0)),
    );
    const calls: number[] = [];
    const s = await dynamicSampling((b) => {
      calls.push(b);
      return Promise.resolve(batches[b]!);
    }, { groups, maxBatches });
    const want = reference(batches, groups, maxBatches);
    assert.deepEqual([...new Set(s.episodes.map((e) => e.task.groupId))], want.kept, `trial ${trial}`);
    assert.equal(s.groupsKept, want.kept.length);
    assert.equal(s.batches, want.used);
    assert.deepEqual(calls, Array.from({ length: want.used }, (_, b) => b), "batches asked for in order, once each");
    assert.deepEqual(s.drawn, batches.slice(0, want.used).flat(), "every drawn episode, in order");
    assert.equal(s.episodes.length, want.kept.length * g, "a kept group keeps all its episodes");
    assert.ok(s.groupsKept === groups || s.batches === maxBatches, "stops only when full or out of batches");
  }
});

Deno.test("dynamicSampling(): all-equal groups are dropped, a full quota stops the draws, too few kept is returned as is", async () => {
  const batch0 = [ep(0, 1), ep(0, 1), ep(1, 0), ep(1, 0), ep(2, 0), ep(2, 1)];
  const batch1 = [ep(3, 0.5), ep(3, 0.5), ep(4, 1), ep(4, 0)];
  const draws = [batch0, batch1];
  const one = await dynamicSampling((b) => Promise.resolve(draws[b]!), { groups: 1, maxBatches: 10 });
  assert.deepEqual(one.episodes, [ep(2, 0), ep(2, 1)]);
  assert.equal(one.batches, 1);
  const three = await dynamicSampling((b) => Promise.resolve(draws[b] ?? []), { groups: 3, maxBatches: 3 });
  assert.deepEqual(three.episodes, [ep(2, 0), ep(2, 1), ep(4, 1), ep(4, 0)], "equal partial rewards (0.5) dropped too");
  assert.deepEqual([three.batches, three.groupsKept, three.drawn.length], [3, 2, 10]);
  const none = await dynamicSampling(() => Promise.resolve([ep(0, 0), ep(0, 0)].map((e) => ({ ...e }))), {
    groups: 2,
    maxBatches: 1,
  });
  assert.deepEqual([none.episodes, none.groupsKept, none.batches], [[], 0, 1]);
});

Deno.test("dynamicSampling(): bad counts and a group id drawn twice are refused, naming the value", async () => {
  const draw = () => Promise.resolve([ep(0, 0), ep(0, 1)]);
  await assert.rejects(
    dynamicSampling(draw, { groups: 0, maxBatches: 2 }),
    /groups must be an integer ≥ 1, current value is 0/,
  );
  await assert.rejects(
    dynamicSampling(draw, { groups: 2, maxBatches: 1.5 }),
    /maxBatches must be an integer ≥ 1, current value is 1.5/,
  );
  await assert.rejects(
    dynamicSampling(draw, { groups: 2, maxBatches: 3 }),
    /group ids must be unique over the batches, 0 came back in batch 1/,
  );
});
