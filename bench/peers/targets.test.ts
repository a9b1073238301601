import { describe, expect, it } from 'vitest';
import type { Row } from './rows.js';
import { LATENCY_BASELINE_SCENARIO, LATENCY_MS } from './latency.js';
import { targets } from './targets.js';

const REDRIVE = "requeue's latency rows: messages the redrive moved to the DLQ";

const row = (scenario: string, system: Row['system'], deadLettered?: number): Row => ({
  scenario,
  system,
  concurrency: 50,
  backlog: 1000,
  messagesPerSecond: { median: 1000, min: 1000, max: 1000 },
  callsPerMessage: 0.2,
  callsPerMessageByAction: {},
  cpuMsPerThousand: 200,
  peakRssMb: 150,
  ...(deadLettered === undefined ? {} : { deadLettered }),
});

const latencyTargets = (latency: Row[]) => targets({ happy: [], latency, retry: [], herd: [], memory: undefined }, 0);
const at15 = `${LATENCY_MS} ms SQS, 5 ms I/O`;

describe('the latency targets: messages the redrive moved to the DLQ', () => {
  it("is met when none of requeue's rows left anything in its DLQ, peers' rows aside", () => {
    const found = latencyTargets([row(LATENCY_BASELINE_SCENARIO, 'requeue', 0), row(at15, 'requeue', 0), row(at15, 'raw-sdk-loop', 7)]).find(
      (t) => t.measure === REDRIVE,
    );
    expect(found?.met).toBe(true);
  });

  it('is missed when any of requeue’s rows did, and counts them all', () => {
    const found = latencyTargets([row(LATENCY_BASELINE_SCENARIO, 'requeue', 1), row(at15, 'requeue', 2)]).find((t) => t.measure === REDRIVE);
    expect(found).toMatchObject({ met: false, measured: '3.00' });
  });

  it('is left out for a document saved before rows counted their DLQ, rather than read as 0', () => {
    expect(latencyTargets([row(at15, 'requeue')]).find((t) => t.measure === REDRIVE)).toBeUndefined();
  });
});
