import type { HerdSummary } from './herd.js';
import type { IdleRun } from './idle.js';
import type { MemoryRun } from './memory.js';
import type { FleetRun } from './fleet.js';
import type { Config, IdempotencyRun, Row, Target } from './rows.js';

export type Document = {
  config: Config;
  happy: Row[];
  /** The batch handlers on bulk sinks; absent from documents saved before. */
  batch?: Row[];
  tracing?: Row[];
  featureCost?: Row[];
  idempotency?: IdempotencyRun;
  latency: Row[];
  idle?: IdleRun;
  retry: Row[];
  memory: MemoryRun;
  herd: HerdSummary[];
  fleet?: FleetRun[];
  targets: Target[];
  durationSeconds: number;
};
