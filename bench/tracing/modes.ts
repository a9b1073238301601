/** The tracing cost bench's modes: WORKER_TRACING=off, on with no SDK registered, on with the Node SDK. */
export const TRACING_MODES = ['off', 'no-sdk', 'sdk'] as const;
export type TracingMode = (typeof TRACING_MODES)[number];
