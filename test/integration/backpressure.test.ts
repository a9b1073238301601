import { createRetryPolicy, NonRetryableError, RetryableError } from '@requeue/retry';
import { SqsWorker, type MessageHandler } from '@requeue/sqs';
import type { BackpressureOptions } from '@requeue/sqs/backpressure';
import { describe, expect, it } from 'vitest';
import { sendAll } from '../support/publish.js';
import { emulatorSuite } from '../support/suite.js';
import { eventually, type QueuePair } from '../support/emulator.js';

const suite = emulatorSuite();

const MESSAGES = 40;
const OUTAGE_MS = 3000;

/** A dependency that answers 503 for OUTAGE_MS from its first call, then 200; it records every call. */
function flakyDependency() {
  let firstCallAt: number | undefined;
  const calls: Array<{ id: string; attempt: number; down: boolean }> = [];
  const handler: MessageHandler = async (message) => {
    firstCallAt ??= Date.now();
    const down = Date.now() - firstCallAt < OUTAGE_MS;
    calls.push({ id: (message.body as { id: string }).id, attempt: message.attempt, down });
    if (down) throw new RetryableError('dependency answered 503', { errorType: 'TEMPORARY' });
  };
  return { handler, calls };
}

const publish = (queueUrl: string, count = MESSAGES) =>
  sendAll(
    suite.emulator.sqs,
    queueUrl,
    Array.from({ length: count }, (_, i) => ({ body: JSON.stringify({ id: `m${i}` }) })),
  );

async function run(queues: QueuePair, backpressure: BackpressureOptions | false) {
  const dependency = flakyDependency();
  const worker = new SqsWorker({
    sqs: suite.emulator.sqs,
    queueUrl: queues.queueUrl,
    deadLetterQueueUrl: queues.dlqUrl,
    handler: dependency.handler,
    // Three attempts, 200 ms apart: far less than the outage lasts.
    retryPolicy: createRetryPolicy({ maxAttempts: 3, jitter: 'none', types: { TEMPORARY: { backoff: { type: 'fixed', delayMs: 200 } } } }),
    maxInFlight: 10,
    waitTimeSeconds: 1,
    batchWaitMs: 5,
    backpressure,
  });
  await publish(queues.queueUrl);
  await worker.start();
  return { worker, dependency };
}

const finished = async (queues: QueuePair) => {
  const [queue, dlq] = await Promise.all([suite.emulator.depth(queues.queueUrl), suite.emulator.depth(queues.dlqUrl)]);
  return queue.visible + queue.inFlight + queue.delayed === 0 ? dlq.visible : undefined;
};

describe('adaptive backpressure against the SQS protocol (fauxqs)', () => {
  it('rides out a dependency outage without using attempts: nothing dead-lettered, where the same policy without it loses the backlog', async () => {
    const withFeature = await suite.emulator.createQueues();
    const without = await suite.emulator.createQueues();
    const on = await run(withFeature, { breaker: { minimumRequests: 10, windowMs: 5000, cooldownMs: 300, maxCooldownMs: 1000 } });
    const off = await run(without, false);
    try {
      // The breaker's state is a detail of readiness, not a reason to be unready.
      const open = await eventually(
        () => {
          const health = on.worker.health();
          return health.dependencies.some((d) => d.breaker === 'open') ? health : undefined;
        },
        5000,
        'the breaker to open',
      );
      expect(open.ready).toBe(true);

      const deadLetteredOn = await eventually(() => finished(withFeature), 30_000, 'the backlog to drain with backpressure');
      const deadLetteredOff = await eventually(() => finished(without), 30_000, 'the backlog to drain without backpressure');

      expect(deadLetteredOn).toBe(0);
      const succeeded = on.dependency.calls.filter((c) => !c.down);
      expect(new Set(succeeded.map((c) => c.id)).size).toBe(MESSAGES);
      // Only calls made before the breaker opened used an attempt: none reached the third.
      expect(Math.max(...succeeded.map((c) => c.attempt))).toBeLessThanOrEqual(2);
      const downCallsOn = on.dependency.calls.filter((c) => c.down).length;
      const downCallsOff = off.dependency.calls.filter((c) => c.down).length;
      // The first wave, then a probe per cool-down: a fraction of what plain retries send.
      expect(downCallsOn).toBeLessThan(30);
      expect(downCallsOn * 3).toBeLessThan(downCallsOff);
      // Without backpressure the same policy spends every attempt inside the outage.
      expect(deadLetteredOff).toBeGreaterThan(MESSAGES / 2);
      expect(on.worker.health().dependencies[0]).toMatchObject({ breaker: 'closed' });
    } finally {
      await Promise.all([on.worker.stop({ drainTimeoutMs: 0 }), off.worker.stop({ drainTimeoutMs: 0 })]);
    }
  });

  it('never opens the breaker on a 10% permanent and 10% transient failure mix without an outage', async () => {
    const queues = await suite.emulator.createQueues();
    let calls = 0;
    const handler: MessageHandler = async (message) => {
      calls++;
      const n = Number((message.body as { id: string }).id.slice(1));
      if (n % 10 === 3) throw new NonRetryableError('validation: rejected by the dependency (400)');
      if (n % 10 === 7 && message.attempt === 1) throw new RetryableError('dependency answered 503', { errorType: 'TEMPORARY' });
    };
    await publish(queues.queueUrl, 200);
    const worker = new SqsWorker({
      sqs: suite.emulator.sqs,
      queueUrl: queues.queueUrl,
      deadLetterQueueUrl: queues.dlqUrl,
      handler,
      retryPolicy: createRetryPolicy({ jitter: 'none', types: { TEMPORARY: { backoff: { type: 'fixed', delayMs: 100 } } } }),
      maxInFlight: 10,
      waitTimeSeconds: 1,
      batchWaitMs: 5,
      // The defaults, with a small minimum volume so that 200 messages are plenty.
      backpressure: { breaker: { minimumRequests: 10 } },
    });
    await worker.start();
    const states = new Set<string>();
    try {
      const deadLettered = await eventually(
        () => {
          for (const dependency of worker.health().dependencies) states.add(dependency.breaker);
          return finished(queues);
        },
        30_000,
        'the mix to drain',
      );
      expect(deadLettered).toBe(20);
      expect(calls).toBe(220);
      expect([...states]).toEqual(['closed']);
    } finally {
      await worker.stop({ drainTimeoutMs: 0 });
    }
  });
});
