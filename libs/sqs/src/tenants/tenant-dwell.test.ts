import { describe, expect, it } from 'vitest';
import { dwellSince } from './tenant-dwell.js';

describe('dwellSince', () => {
  it("counts from SQS's SentTimestamp, and not on a retry copy, whose send time includes its backoff", () => {
    expect(dwellSince({ Attributes: { SentTimestamp: '1700000000000' } })).toBe(1_700_000_000_000);
    expect(
      dwellSince({ Attributes: { SentTimestamp: '1700000000000' }, MessageAttributes: { 'x-retry': { DataType: 'String', StringValue: '{}' } } }),
    ).toBeUndefined();
    expect(dwellSince({})).toBeUndefined();
  });
});
