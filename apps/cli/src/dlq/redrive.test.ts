import { describe, expect, it } from 'vitest';
import { parseCanary, parseShare, redriveReport } from './redrive.js';

describe('requeue dlq redrive arguments and report', () => {
  it('reads --canary as a share or a number of messages, and refuses anything else', () => {
    expect(parseCanary('5%')).toEqual({ percent: 5 });
    expect(parseCanary('50')).toEqual({ count: 50 });
    for (const bad of ['0', '0%', '150%', 'five', '-3', '2.5']) expect(() => parseCanary(bad)).toThrow(/--canary takes/);
  });

  it('reads --halt-when-failing as a percentage', () => {
    expect(parseShare('--halt-when-failing', '20%')).toBe(0.2);
    for (const bad of ['20', '0%', '101%', '0.2']) expect(() => parseShare('--halt-when-failing', bad)).toThrow(/takes a share above 0% and at most 100%/);
  });

  it('says what a halt left behind and what to do next', () => {
    const report = redriveReport({
      outcome: 'halted',
      matched: 2_500,
      canary: 125,
      sent: 125,
      failed: 25,
      failureShare: 0.2,
      haltWhenFailing: 0.1,
      untouched: 2_375,
      failures: [{ messageId: 'd1', redrivenAs: 'r1', returnedAs: 'b1', reason: 'non-retryable', errorType: 'HTTP_4XX', error: '400' }],
      skipped: [],
      hidden: { atStart: 0, stillHidden: 0 },
      ownIdentity: [{ messageId: 'd2', why: 'its x-retry does not verify' }],
      rate: { set: 50, achieved: 49.7 },
      elapsedMs: 8_500,
    });
    expect(report).toContain('came back d1 (sent as r1, back as b1): non-retryable HTTP_4XX 400');
    expect(report).toMatch(
      /halted: 25 of 125 came back \(20\.0%\) at 49\.7\/s \(set 50\/s\), at or above 10\.0%; 2375 left in the DLQ untouched\. Fix the cause, then run the same command again\n/,
    );
    expect(report).toMatch(/\nnew identity d2: its x-retry does not verify$/);
  });
});
