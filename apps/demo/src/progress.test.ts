import { describe, expect, it } from 'vitest';
import { progressOf } from './progress.js';

const log = (msg: string, originalMessageId: string) => JSON.stringify({ level: 40, time: 0, msg, originalMessageId });

describe('demo progress', () => {
  it('counts each message once: none has failed yet at the start, so none is retrying', () => {
    expect(progressOf(40, [], '', 0)).toMatchObject({ succeeded: 0, deadLettered: 0, retrying: 0, firstAttempt: 40 });
  });

  it('moves a message from retrying to succeeded or dead-lettered, never counting it twice', () => {
    const output = [
      log('handler failed; retrying', 'a'),
      log('handler failed again; retrying', 'a'),
      log('dependency rate-limiting or down; retrying without using an attempt', 'b'),
      log('handler failed; retrying', 'c'),
      log('dead-lettered', 'c'),
      log('dead-lettered', 'd'),
      '{"_aws":{"CloudWatchMetrics":[]},"MessagesRetried":1}',
    ].join('\n');
    const ledger = [
      { id: 'job-a', attempt: 3, messageId: 'a3', at: 1, originalMessageId: 'a' },
      { id: 'job-e', attempt: 1, messageId: 'e', at: 1, originalMessageId: 'e' },
    ];
    expect(progressOf(10, ledger, output, 5)).toEqual({ elapsedSeconds: 5, published: 10, succeeded: 2, deadLettered: 2, retrying: 1, firstAttempt: 5 });
  });
});
