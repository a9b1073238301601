/**
 * Node's flags for the worker in a task of `memoryLimitMiB`. The live set of a worker is
 * small (its in-flight bodies and the SDK), but on a big host V8 lets the heap drift up
 * under a high allocation rate before it collects; an old generation at 3/8 of the task's
 * memory makes it collect early and keeps RSS flat (the bench's 100k-message run: about
 * 175 MB instead of 325 MB), with room left for 1 MiB messages. The young generation is
 * 16 MB: what lives for one delivery (a received batch, a process span waiting in the
 * span processor's batch) then dies young. At 8 MB it was promoted, and the old
 * generation's marking on V8's helper threads cost the OpenTelemetry SDK's rows 17-25%
 * of their throughput instead of 7-8%; peak RSS is the same at both.
 */
export function workerNodeOptions(memoryLimitMiB: number): string {
  return `--max-semi-space-size=16 --max-old-space-size=${Math.floor((memoryLimitMiB * 3) / 8)}`;
}
