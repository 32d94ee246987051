// What the tests read of a task run as a subprocess.

/**
 * A Deno subprocess's stderr as its task wrote it: without the runtime's own progress lines, `Download <url>` (Deno
 * 2.9 fetches a package's registry entry again in every process while its cache lacks it, as after a first run with
 * an empty cache) and `Blocking waiting for file lock …` (concurrent processes of one project). Only whole lines of
 * exactly those shapes go, so a task's message, a warning or a stack trace is never hidden.
 */
export function taskStderr(bytes: Uint8Array): string {
  return new TextDecoder().decode(bytes).replace(
    /^(?:Download https?:\/\/\S+|Blocking waiting for file lock .*)\n/gm,
    "",
  );
}
