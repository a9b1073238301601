/** A region's round trip, at the proxy, for every SQS action: SQS answers in 10-30 ms. */
export const LATENCY_MS = 15;

/** SQS bills per request: what a million messages cost in requests, at a measured calls-per-message rate. */
export function requestsPerMillion(callsPerMessage: number): number {
  return Math.round(callsPerMessage * 1_000_000);
}
