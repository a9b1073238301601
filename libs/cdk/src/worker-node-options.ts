/**
 * Node's flags for the worker in a task of `memoryLimitMiB`. The live set of a worker is
 * small (its in-flight bodies and the SDK), but on a big host V8 lets the heap drift up
 * under a high allocation rate before it collects; a young generation of 8 MB and an old
 * generation at 3/8 of the task's memory make it collect early and keep RSS flat, with
 * room left for 1 MiB messages (docs/design/2026-11-26-benchmark-investigations.md).
 */
export function workerNodeOptions(memoryLimitMiB: number): string {
  return `--max-semi-space-size=8 --max-old-space-size=${Math.floor((memoryLimitMiB * 3) / 8)}`;
}
