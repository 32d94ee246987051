import assert from "node:assert/strict";
import { writeFileAtomic } from "../lib/atomic_file.ts";

Deno.test("writeFileAtomic(): text and bytes replace the file whole; nothing is left beside it", async () => {
  const dir = await Deno.makeTempDir();
  await writeFileAtomic(`${dir}/a.txt`, "first");
  await writeFileAtomic(`${dir}/a.txt`, "é");
  assert.equal(await Deno.readTextFile(`${dir}/a.txt`), "é");
  const bytes = new Uint8Array(3 << 20).map((_, i) => i % 251);
  await writeFileAtomic(`${dir}/b.bin`, bytes);
  assert.deepEqual(await Deno.readFile(`${dir}/b.bin`), bytes);
  assert.deepEqual([...Deno.readDirSync(dir)].map((e) => e.name).sort(), ["a.txt", "b.bin"]);
  await assert.rejects(writeFileAtomic(`${dir}/missing/c.txt`, "x"), Deno.errors.NotFound);
});

Deno.test("writeFileAtomic(): a process killed before the rename leaves the old file and a hidden temporary", async () => {
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(`${dir}/config.json`, "old");
  const code = `import { writeFileAtomic } from "${new URL("../lib/atomic_file.ts", import.meta.url).href}";
await writeFileAtomic("${dir}/config.json", "new", "resume-config");`;
  const r = await new Deno.Command(Deno.execPath(), {
    args: ["eval", code],
    env: { MEMPO_FAULT: "resume-config" },
  }).output();
  assert.equal(r.signal, "SIGKILL");
  assert.equal(await Deno.readTextFile(`${dir}/config.json`), "old");
  const names = [...Deno.readDirSync(dir)].map((e) => e.name).sort();
  assert.equal(names.length, 2);
  assert.match(names[0]!, /^\.config\.json\.tmp-\d+$/);
});
