import assert from "node:assert/strict";
import { DataError, UsageError } from "../lib/errors.ts";

Deno.test("UsageError and DataError: the exit codes the tasks use, told apart from other errors by class", () => {
  const usage = new UsageError("bad flag");
  const data = new DataError("bad file", { cause: new Error("ENOENT") });
  assert.equal(usage.exitCode, 2);
  assert.equal(data.exitCode, 1);
  assert.ok(usage instanceof RangeError && !(usage instanceof DataError));
  assert.ok(data instanceof Error && !(data instanceof RangeError) && !(data instanceof UsageError));
  assert.equal(usage.name, "UsageError");
  assert.equal(data.name, "DataError");
  assert.equal((data.cause as Error).message, "ENOENT");
  assert.equal(String(usage), "UsageError: bad flag");
});
