/** A region's round trip, at the proxy, for every SQS action: SQS answers in 10-30 ms. */
export const LATENCY_MS = 15;

/** requeue's own row with SQS on loopback, in the same rounds as the 5 ms handler's latency rows. */
export const LATENCY_BASELINE_SCENARIO = '0 ms SQS, 5 ms I/O';

/**
 * The same for the 50 ms handler @200: how far the machine's CPU lets requeue go there
 * with no round trip to hide, beside the handler-bound 4,000 messages/s.
 */
export const WEBHOOK_BASELINE_SCENARIO = '0 ms SQS, 50 ms I/O';

/** The rows requeue runs on loopback beside its latency rows. */
export const isLatencyBaseline = (scenario: string): boolean => scenario === LATENCY_BASELINE_SCENARIO || scenario === WEBHOOK_BASELINE_SCENARIO;

/**
 * requeue at 15 ms with a prefetch four times `maxInFlight`, in the same rounds: what an
 * operator buys with `WORKER_PREFETCH` at a region's round trip, beyond the default bound.
 */
export const LARGE_PREFETCH = 200;
export const LARGE_PREFETCH_SCENARIO = `${LATENCY_MS} ms SQS, 5 ms I/O, WORKER_PREFETCH=${LARGE_PREFETCH}`;

/** SQS bills per request: what a million messages cost in requests, at a measured calls-per-message rate. */
export function requestsPerMillion(callsPerMessage: number): number {
  return Math.round(callsPerMessage * 1_000_000);
}
