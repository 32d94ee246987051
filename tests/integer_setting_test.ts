import assert from "node:assert/strict";
import { integerSetting } from "../lib/integer_setting.ts";
import { UsageError } from "../lib/errors.ts";

Deno.test("integerSetting(): the fallback when unset or blank, the integer when one, a UsageError naming the variable and value otherwise", () => {
  const read = (value: string | undefined, min = 0) => integerSetting("MEMPO_TEST_COUNT", { min, fallback: 7, value });
  assert.equal(read(""), 7);
  assert.equal(read("  "), 7);
  assert.equal(read("0"), 0);
  assert.equal(read("12"), 12);
  for (const bad of ["1.5", "two", "-1", "1e400"]) {
    assert.throws(
      () => read(bad),
      (e: Error) =>
        e instanceof UsageError &&
        e.message === `MEMPO_TEST_COUNT must be an integer ≥ 0, current value is ${JSON.stringify(bad)}`,
      bad,
    );
  }
  assert.throws(() => read("0", 1), /MEMPO_TEST_COUNT must be an integer ≥ 1, current value is "0"/);
  // from the environment when no value is given
  Deno.env.set("MEMPO_TEST_COUNT", "3");
  try {
    assert.equal(read(undefined), 3);
  } finally {
    Deno.env.delete("MEMPO_TEST_COUNT");
  }
  assert.equal(read(undefined), 7);
});
