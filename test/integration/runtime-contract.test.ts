import { sqsHandler } from '@requeue/lambda';
import type { MessageHandler } from '@requeue/sqs';
import { describe, expect, it } from 'vitest';
import { eventually, type QueuePair } from '../support/emulator.js';
import { startEventSourceMapping } from '../support/lambda-esm.js';
import { sendAll } from '../support/publish.js';
import { CORPUS, EXPECTED, contractHandler, contractPolicy, endings, job } from '../support/runtime-contract.js';
import { emulatorSuite } from '../support/suite.js';

const suite = emulatorSuite();

type Runtime = (queues: QueuePair, handler: ReturnType<typeof contractHandler>) => Promise<() => Promise<void>>;

/** The container worker: `SqsWorker` polling the queue. */
const worker: Runtime = async (queues, handler) => {
  await suite.engine(
    queues,
    handler as MessageHandler,
    { maxAttempts: 3, jitter: 'none', types: { TEMPORARY: { backoff: { type: 'fixed', delayMs: 0 } } } },
    { schema: job },
  );
  return async () => undefined;
};

/** The Lambda adapter, invoked by a stand-in for Lambda's event source mapping on the same queue. */
const lambda: Runtime = async (queues, handler) => {
  const fn = sqsHandler(handler, {
    sqs: suite.emulator.sqs,
    queueUrl: queues.queueUrl,
    deadLetterQueueUrl: queues.dlqUrl,
    retryPolicy: contractPolicy(),
    schema: job,
  });
  const mapping = await startEventSourceMapping(suite.emulator.sqs, queues.queueUrl, fn);
  return () => mapping.stop();
};

describe.each([
  ['the worker', worker],
  ['the Lambda adapter', lambda],
])('one corpus, the same outcomes: %s', (_name, runtime) => {
  it('succeeds, retries, dead-letters each job as the contract says, on a standard queue', async () => {
    const queues = await suite.emulator.createQueues();
    const runs = new Map<string, number[]>();
    const succeeded = new Set<string>();
    const stop = await runtime(queues, contractHandler(runs, succeeded));
    try {
      await sendAll(
        suite.emulator.sqs,
        queues.queueUrl,
        CORPUS.map(({ body }) => ({ body })),
      );
      const deadLetters = Object.values(EXPECTED).filter((e) => e.end !== 'succeeded').length;
      await eventually(
        async () => {
          const [queue, dlq] = await Promise.all([suite.emulator.depth(queues.queueUrl), suite.emulator.depth(queues.dlqUrl)]);
          return queue.visible + queue.inFlight + queue.delayed === 0 && dlq.visible === deadLetters ? true : undefined;
        },
        30_000,
        'every job to end',
      );
    } finally {
      await stop();
    }
    const ends = endings(succeeded, await suite.emulator.drain(queues.dlqUrl));
    expect(Object.fromEntries(CORPUS.map(({ id }) => [id, { attempts: runs.get(id) ?? [], end: ends[id] }]))).toEqual(EXPECTED);
  }, 60_000);
});
