/**
 * DAPO's dynamic sampling: draw batches of groups until enough of them have
 * rewards that differ, and train on those only (`rl.filterGroups`).
 *
 * @module
 */
import { rewardsEqual } from "./metrics.ts";

/** What {@linkcode dynamicSampling} kept, and what it drew to keep it. */
export interface DynamicSample<E> {
  /** The kept groups' episodes, group after group in the order drawn (at most `groups` groups). */
  episodes: E[];
  /** Every episode drawn, kept or not, in the order drawn (what the step's rollout metrics describe). */
  drawn: E[];
  /** Batches drawn (1 … `maxBatches`). */
  batches: number;
  /** Groups kept (0 … `groups`; fewer than `groups` when `maxBatches` ran out first). */
  groupsKept: number;
}

/**
 * Draws batches until `groups` groups whose rewards are not all equal are
 * kept, or `maxBatches` batches are drawn; a group of equal rewards (all right
 * or all wrong) has GRPO advantage 0 on every episode and is left out, and so
 * is every group past the `groups`-th kept.
 *
 * ```text
 * for b = 0, 1, … while kept < groups and b < maxBatches:
 *   batch ← draw(b)
 *   kept  ← kept ++ [g ∈ batch, in order : rewards of g not all equal]
 * return kept[0 : groups]
 * ```
 *
 * verl's `algorithm.filter_groups` (DAPO recipe) stops with an error when
 * `max_num_gen_batches` runs out; here the step trains on the groups kept so
 * far (none: no update), and says how many (`groupsKept`), so a run never
 * stops on a batch of easy or hopeless questions.
 *
 * Source: DAPO (Yu et al. 2025, arXiv:2503.14476) §3.2 "Dynamic Sampling" (over-sample, filter out prompts whose
 * accuracy is 0 or 1).
 * Reference: verl `RayDAPOTrainer.fit` (`recipe/dapo`): `filter_groups.enable`, `max_num_gen_batches`, the batch
 * cut to `train_batch_size` prompts.
 *
 * @param draw A new batch of episodes, each group's episodes with one `task.groupId` unique over every batch
 *   (batch `b` of the step).
 * @param options `groups`: groups to keep (the step's questions); `maxBatches`: batches drawn at most (≥ 1).
 * @returns The kept episodes, every drawn one, and the counts.
 * @throws {RangeError} When `groups` or `maxBatches` is not an integer ≥ 1, or a group id comes back in a later
 *   batch.
 *
 * @example Two groups wanted: batch 0 has one with differing rewards, batch 1 another
 * ```ts
 * import assert from "node:assert/strict";
 * import { dynamicSampling } from "./dynamic_sampling.ts";
 *
 * const ep = (groupId: number, reward: number) => ({ reward, task: { groupId } });
 * const batches = [[ep(0, 1), ep(0, 1), ep(1, 0), ep(1, 1)], [ep(2, 0), ep(2, 1), ep(3, 1), ep(3, 0)]];
 * const s = await dynamicSampling((b) => Promise.resolve(batches[b]!), { groups: 2, maxBatches: 4 });
 * assert.deepEqual(s.episodes.map((e) => e.task.groupId), [1, 1, 2, 2]); // group 3 is past the two kept
 * assert.deepEqual([s.batches, s.groupsKept, s.drawn.length], [2, 2, 8]);
 * ```
 */
export async function dynamicSampling<E extends { reward: number; task: { groupId: string | number } }>(
  draw: (batch: number) => Promise<E[]>,
  options: { groups: number; maxBatches: number },
): Promise<DynamicSample<E>> {
  const { groups, maxBatches } = options;
  for (const [name, value] of [["groups", groups], ["maxBatches", maxBatches]] as const) {
    if (!(Number.isInteger(value) && value >= 1)) {
      throw new RangeError(`Cannot sample dynamically: ${name} must be an integer ≥ 1, current value is ${value}`);
    }
  }
  const kept: E[][] = [];
  const drawn: E[] = [];
  const seen = new Set<string | number>();
  let batches = 0;
  while (kept.length < groups && batches < maxBatches) {
    const batch = await draw(batches);
    batches++;
    const byGroup = new Map<string | number, E[]>();
    for (const e of batch) {
      const id = e.task.groupId;
      if (seen.has(id)) {
        throw new RangeError(
          `Cannot sample dynamically: group ids must be unique over the batches, ${
            JSON.stringify(id)
          } came back in batch ${batches - 1}`,
        );
      }
      const group = byGroup.get(id);
      if (group === undefined) byGroup.set(id, [e]);
      else group.push(e);
    }
    byGroup.forEach((_, id) => seen.add(id));
    drawn.push(...batch);
    for (const group of byGroup.values()) {
      if (kept.length < groups && !rewardsEqual(group.map((e) => e.reward))) kept.push(group);
    }
  }
  return { episodes: kept.flat(), drawn, batches, groupsKept: kept.length };
}
