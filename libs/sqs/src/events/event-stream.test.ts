import { describe, expect, it } from 'vitest';
import type { WorkerLogger } from './logger.js';
import { EventStream } from './event-stream.js';

function recordingLogger() {
  const warnings: Array<{ fields: object; message: string }> = [];
  const logger: WorkerLogger = {
    debug: () => undefined,
    info: () => undefined,
    warn: (fields, message) => warnings.push({ fields, message }),
    error: () => undefined,
  };
  return { logger, warnings };
}

describe('EventStream', () => {
  it('calls listeners in the order they were added, and stops calling one once it is removed', () => {
    const stream = new EventStream(recordingLogger().logger);
    const calls: string[] = [];
    const removeFirst = stream.on('received', ({ messageId }) => calls.push(`first ${messageId}`));
    stream.on('received', ({ messageId }) => calls.push(`second ${messageId}`));
    stream.emit('received', { messageId: 'a', receivedAt: 1 });
    removeFirst();
    stream.emit('received', { messageId: 'b', receivedAt: 2 });
    expect(calls).toEqual(['first a', 'second a', 'second b']);
  });

  it('logs a listener that throws and still calls the others: a listener cannot break the worker', () => {
    const { logger, warnings } = recordingLogger();
    const stream = new EventStream(logger);
    const after: string[] = [];
    stream.on('pollError', () => {
      throw new Error('listener bug');
    });
    stream.on('pollError', ({ consecutiveFailures }) => after.push(String(consecutiveFailures)));
    expect(() => stream.emit('pollError', { error: new Error('down'), consecutiveFailures: 3, retryInMs: 100 })).not.toThrow();
    expect(after).toEqual(['3']);
    expect(warnings).toMatchObject([{ fields: { event: 'pollError' }, message: 'a worker event listener threw; the worker carries on' }]);
  });
});
