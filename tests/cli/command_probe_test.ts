import assert from "node:assert/strict";
import { commandSucceeds } from "../../lib/cli/command_probe.ts";

Deno.test("commandSucceeds(): true only for a program that starts and exits 0", async () => {
  const deno = Deno.execPath();
  assert.equal(await commandSucceeds(deno, ["eval", "Deno.exit(0)"]), true);
  assert.equal(await commandSucceeds(deno, ["eval", "Deno.exit(1)"]), false);
  assert.equal(await commandSucceeds(deno, ["eval", "throw new Error('x')"]), false);
  // not installed, or not a program: false, not a thrown spawn error
  assert.equal(await commandSucceeds("mempo-lab-no-such-program", ["--version"]), false);
  assert.equal(await commandSucceeds(new URL(".", import.meta.url).pathname, []), false);
});
