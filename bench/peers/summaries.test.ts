import { describe, expect, it } from 'vitest';
import { callsPerMessageByAction } from './driver.js';
import { callsSince } from './measurement.js';
import { summarizeHerd, type HerdRun } from './herd.js';
import { slopeMbPerMinute } from './memory.js';
import type { Row } from './rows.js';
import { pairedRatio } from './rounds.js';

const run = (downstreamRequests: number, drained = true): HerdRun => ({
  policy: 'p',
  downstreamRequests,
  drainSeconds: downstreamRequests / 100,
  peakAfterRecovery: 100,
  deadLettered: 0,
  drained,
  timeline: [{ second: 0, accepted: downstreamRequests, rejected: 0 }],
});

describe('herd summary', () => {
  it('reports the median and range, and charts the median run', () => {
    const summary = summarizeHerd([run(2100), run(2000), run(2050)]);
    expect(summary.downstreamRequests).toEqual({ median: 2050, min: 2000, max: 2100 });
    expect(summary.timeline[0]!.accepted).toBe(2050);
    expect(summary.drained).toBe(true);
  });

  it('marks the policy as not drained when any run hit its cap, so its figures read as lower bounds', () => {
    expect(summarizeHerd([run(2000), run(4000, false), run(2100)]).drained).toBe(false);
  });
});

describe('RSS slope', () => {
  it('is flat for a flat series and 60 MB/min for 1 MB a second', () => {
    expect(
      slopeMbPerMinute([
        [0, 144],
        [1, 144],
        [2, 144],
      ]),
    ).toBe(0);
    expect(
      slopeMbPerMinute([
        [0, 100],
        [1, 101],
        [2, 102],
        [3, 103],
      ]),
    ).toBeCloseTo(60);
  });

  it('is 0 for fewer than two samples', () => {
    expect(slopeMbPerMinute([[0, 100]])).toBe(0);
  });
});

describe('SQS calls per message, by action', () => {
  it('pools the runs, so a short run weighs no more than its messages', () => {
    const byAction = callsPerMessageByAction([
      { callsCountedOver: 1000, callsByAction: { ReceiveMessage: 100, DeleteMessageBatch: 100 } },
      { callsCountedOver: 10, callsByAction: { ReceiveMessage: 10, DeleteMessageBatch: 1, SendMessageBatch: 1 } },
    ]);
    expect(byAction.ReceiveMessage).toBeCloseTo(110 / 1010);
    expect(byAction.DeleteMessageBatch).toBeCloseTo(101 / 1010);
    expect(byAction.SendMessageBatch).toBeCloseTo(1 / 1010);
  });

  it('counts a run from its timed window: calls made before it (start-up, filling the prefetch) are left out', () => {
    const atWindowStart = { GetQueueAttributes: 1, ReceiveMessage: 40 };
    const atEnd = { GetQueueAttributes: 1, ReceiveMessage: 140, DeleteMessageBatch: 95 };
    expect(callsSince(atEnd, atWindowStart)).toEqual({ ReceiveMessage: 100, DeleteMessageBatch: 95 });
  });

  it('reads calls that completed nothing as infinitely costly, not free', () => {
    expect(callsPerMessageByAction([{ callsCountedOver: 0, callsByAction: { ReceiveMessage: 40 } }])).toEqual({ ReceiveMessage: Infinity });
  });
});

describe('paired ratios', () => {
  const row = (perRound: number[] | undefined, median: number): Row => ({
    scenario: 's',
    system: 'requeue',
    concurrency: 50,
    backlog: 1,
    messagesPerSecond: { median, min: median, max: median },
    ...(perRound ? { perRound } : {}),
    callsPerMessage: 0.2,
    callsPerMessageByAction: {},
    cpuMsPerThousand: 100,
    peakRssMb: 100,
  });

  it('takes the median of the rounds ratios, so a slow round divides out', () => {
    // Round 2 ran the whole machine at half speed: the ratio of medians would read 0.75, each round says 0.9.
    expect(pairedRatio(row([900, 450, 900], 900), row([1000, 500, 1000], 1000))).toBeCloseTo(0.9);
    expect(pairedRatio(row([900, 450, 1000], 900), row([1000, 1000, 500], 1000))).toBeCloseTo(0.9);
  });

  it('falls back to the ratio of medians without rounds to pair, and is NaN for a row that did not run', () => {
    expect(pairedRatio(row(undefined, 900), row([1000, 1000], 1000))).toBeCloseTo(0.9);
    expect(pairedRatio(row([1], 900), undefined)).toBeNaN();
  });
});
