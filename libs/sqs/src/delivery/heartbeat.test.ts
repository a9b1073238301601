import { describe, expect, it } from 'vitest';
import type { SqsBatchClient } from '../sqs-io/batch-client.js';
import type { EntryOutcome } from '../sqs-io/batcher.js';
import { MAX_VISIBILITY_SECONDS, VisibilityHeartbeat } from './heartbeat.js';
import { silentLogger } from '../events/logger.js';
import { realTimers } from '../time/timers.js';

function fakeBatch(answer: () => Promise<EntryOutcome> = async () => ({ ok: true })) {
  const changes: Array<{ receiptHandle: string; seconds: number }> = [];
  const batch = {
    changeVisibility: (_queueUrl: string, receiptHandle: string, seconds: number) => {
      changes.push({ receiptHandle, seconds });
      return answer();
    },
  } as unknown as SqsBatchClient;
  return { batch, changes };
}

describe('VisibilityHeartbeat (injected clock)', () => {
  it('extends a message only when less than half a timeout remains', async () => {
    let now = 0;
    const { batch, changes } = fakeBatch();
    const heartbeat = new VisibilityHeartbeat({ batch, queueUrl: 'q', visibilityTimeoutSeconds: 60, logger: silentLogger, now: () => now, timers: realTimers });
    heartbeat.track('h1', 'm1', 0);
    now = 20_000;
    await heartbeat.tick();
    expect(changes).toEqual([]);
    now = 31_000;
    await heartbeat.tick();
    expect(changes).toEqual([{ receiptHandle: 'h1', seconds: 60 }]);
    now = 60_000;
    await heartbeat.tick();
    expect(changes).toHaveLength(1);
    now = 61_000;
    await heartbeat.tick();
    expect(changes).toHaveLength(2);
  });

  it('never keeps a message invisible past 12 hours from its receive', async () => {
    let now = 0;
    const { batch, changes } = fakeBatch();
    const heartbeat = new VisibilityHeartbeat({
      batch,
      queueUrl: 'q',
      visibilityTimeoutSeconds: 600,
      logger: silentLogger,
      now: () => now,
      timers: realTimers,
    });
    heartbeat.track('h', 'm', 0);
    now = (MAX_VISIBILITY_SECONDS - 100) * 1000;
    await heartbeat.tick();
    expect(changes[0]!.seconds).toBe(99);
    now = MAX_VISIBILITY_SECONDS * 1000;
    await heartbeat.tick();
    expect(changes).toHaveLength(1);
  });

  it('waits for an extension under way before untrack returns, so the delete never races it', async () => {
    let now = 0;
    let finish: (outcome: EntryOutcome) => void = () => undefined;
    const { batch } = fakeBatch(() => new Promise((resolve) => (finish = resolve)));
    const heartbeat = new VisibilityHeartbeat({ batch, queueUrl: 'q', visibilityTimeoutSeconds: 10, logger: silentLogger, now: () => now, timers: realTimers });
    heartbeat.track('h', 'm', 0);
    now = 6000;
    void heartbeat.tick();
    let untracked = false;
    const untracking = heartbeat.untrack('h').then(() => (untracked = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(untracked).toBe(false);
    finish({ ok: true });
    await untracking;
    expect(untracked).toBe(true);
    expect(heartbeat.size).toBe(0);
  });
});
