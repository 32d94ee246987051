import assert from "node:assert/strict";
import { pathExists } from "../lib/path_exists.ts";

Deno.test("pathExists(): files, folders and file URLs that exist; not what is missing or below a file", async () => {
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(`${dir}/a.txt`, "a");
  assert.equal(await pathExists(dir), true);
  assert.equal(await pathExists(`${dir}/a.txt`), true);
  assert.equal(await pathExists(new URL(`file://${dir}/a.txt`)), true);
  assert.equal(await pathExists(`${dir}/b.txt`), false);
  assert.equal(await pathExists(`${dir}/a.txt/below`), false);
});
