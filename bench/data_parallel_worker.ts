/// <reference lib="deno.worker" />
// A worker of bench/data_parallel.ts: the bench model on the single-threaded wasm build, timing the train step (or
// scoring) on the rows it is sent (bench/_timed_workload.ts). Modules load on the first message (a worker's static
// imports of the backend keep its message loop from starting under Deno).
interface Job {
  workload: "train" | "score";
  rows: number[][];
  reps: number;
  vocab: number;
}

self.onmessage = async (e: MessageEvent<Job>) => {
  const { setBackend } = await import("../lib/backend.ts");
  const { timedWorkload } = await import("./_timed_workload.ts");
  const { workload, rows, reps, vocab } = e.data;
  await setBackend("wasm", { threads: 1 });
  self.postMessage(await timedWorkload(workload, rows, reps, vocab));
};
