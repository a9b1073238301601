import { describe, expect, it } from 'vitest';
import { toEntry } from './scan.js';

const record = (error: string) =>
  JSON.stringify({
    reason: 'non-retryable',
    errorType: 'PERMANENT',
    error,
    attempts: 1,
    firstReceivedAt: 1,
    deadLetteredAt: 2,
    sourceQueue: 'q',
    originalMessageId: 'm',
  });

describe('reading a dead letter', () => {
  it('cuts an x-dead-letter error longer than 2,048 characters, and says so', () => {
    const entry = toEntry({
      MessageId: 'd1',
      Body: '{}',
      MessageAttributes: { 'x-dead-letter': { DataType: 'String', StringValue: record('a.'.repeat(150_000)) } },
    });
    expect(entry.record!.error).toHaveLength(2048 + '… (cut: 300000 characters in x-dead-letter)'.length);
    expect(entry.record!.error.endsWith('… (cut: 300000 characters in x-dead-letter)')).toBe(true);
    expect(
      toEntry({ MessageId: 'd2', Body: '{}', MessageAttributes: { 'x-dead-letter': { DataType: 'String', StringValue: record('short') } } }).record!.error,
    ).toBe('short');
  });

  it('files a letter without x-dead-letter as no-room when it has 10 attributes, else as moved by the redrive backstop', () => {
    const ten = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`a${i}`, { DataType: 'String', StringValue: 'v' }]));
    expect(toEntry({ MessageId: 'd3', Body: '{}', MessageAttributes: ten }).reason).toBe('no-room');
    expect(toEntry({ MessageId: 'd4', Body: 'x'.repeat(1_041_000) }).reason).toBe('no-room');
    expect(toEntry({ MessageId: 'd5', Body: '{}' }).reason).toBe('redrive-backstop');
  });
});
