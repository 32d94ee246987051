import { cosineLr } from "../../lib/optim/schedule.ts";
import { assertAllClose } from "../../lib/testing/all_close.ts";

Deno.test("cosineLr(): linear warm-up, cosine to the floor, flat after the end", () => {
  assertAllClose(cosineLr(4, 100, 1, 10), 0.5);
  assertAllClose(cosineLr(55, 100, 1, 10), 0.1 + 0.45 * (1 + Math.cos(Math.PI * 0.5)));
  assertAllClose(cosineLr(500, 100, 1, 10, 0), 0);
  assertAllClose(cosineLr(0, 1, 2, 0), 2);
});
