import { SendMessageCommand, type Message, type MessageAttributeValue } from '@aws-sdk/client-sqs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRetryPolicy } from '@requeue/retry';
import { REDRIVE_BACKSTOP } from '@requeue/retry/engine';
import { SqsWorker, type MessageHandler } from '@requeue/sqs';
import { describe, expect, it } from 'vitest';
import { emulatorSuite } from '../support/suite.js';
import { eventually, type QueuePair } from '../support/emulator.js';
import { readSimulationLedger as readLedger } from '@requeue/local-aws/simulation-ledger';
import { sendAll, type Outgoing } from '../support/publish.js';
import { startWorkerProcess, waitUntilReady, type WorkerProcess } from '../support/worker-process.js';
import { account, type ExpectedEnd } from './accounting.js';

interface Case {
  id: string;
  what: string;
  message: Outgoing;
  end: ExpectedEnd;
  /** The worker must log that it ignored an invalid x-retry-policy. */
  warns?: boolean;
}

const text = (value: string): MessageAttributeValue => ({ DataType: 'String', StringValue: value });
const body = (id: string, simulate: Record<string, unknown> = { outcome: 'ok' }, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ id, simulate, ...extra });
const succeeded: ExpectedEnd = { kind: 'succeeded' };
const deadLettered = (reason: string): ExpectedEnd => ({ kind: 'dead-lettered', reason });
const validState = (attempt: number) => JSON.stringify({ v: 1, attempt, firstReceivedAt: Date.now() - 1000, originalMessageId: 'm-1' });
const envelope = (fields: Record<string, unknown>) =>
  JSON.stringify({ Type: 'Notification', MessageId: 'e-1', TopicArn: 'arn:aws:sns:us-east-1:000000000000:jobs', ...fields });

/** The stack's queue takes SQS's 1 MiB less the 8 KiB kept for a dead letter's reason. */
const QUEUE_LIMIT = 1024 * 1024 - 8192;

/** A simulation body padded to exactly the queue's limit: a retry copy cannot also carry x-retry. */
function oneMiB(id: string): string {
  const base = body(id, { outcome: 'transient', failTimes: 1 }, { pad: '' });
  return base.replace('"pad":""', `"pad":"${'x'.repeat(QUEUE_LIMIT - base.length)}"`);
}

const CASES: Case[] = [
  { id: 'empty-payload', what: 'an SNS envelope whose Message is empty', message: { body: envelope({ Message: '' }) }, end: deadLettered('non-retryable') },
  { id: 'invalid-json', what: 'invalid JSON', message: { body: '{"id": "invalid-json", oops' }, end: deadLettered('non-retryable') },
  {
    id: 'wrong-shape',
    what: 'JSON of the wrong shape',
    message: { body: JSON.stringify({ id: 'wrong-shape', simulate: { outcome: 'explode' } }) },
    end: deadLettered('non-retryable'),
  },
  { id: 'array-body', what: 'a JSON array', message: { body: '["array-body"]' }, end: deadLettered('non-retryable') },
  { id: 'one-mib', what: "a body at the queue's size limit that must be retried", message: { body: oneMiB('one-mib') }, end: succeeded },
  // Astral characters (emoji) are valid in SQS but refused by fauxqs, so they are left out.
  {
    id: 'controls',
    what: 'tabs, CR/LF, U+FFFD and private-use characters',
    message: { body: body('controls', { outcome: 'ok' }, { text: '\t\r\n\uFFFD\uE000\u00e9' }) },
    end: succeeded,
  },
  {
    id: 'escaped-nul',
    what: 'JSON-escaped NUL and control characters',
    message: { body: body('escaped-nul', { outcome: 'ok' }, { text: '\u0000\u0001\u001f' }) },
    end: succeeded,
  },
  {
    id: 'latin1-garbage',
    what: 'non-UTF-8-like bytes as text',
    message: { body: 'latin1-garbage \u00ff\u00fe\u00fd\u00c3\u00a9' },
    end: deadLettered('non-retryable'),
  },
  {
    id: 'broken-envelope',
    what: 'a non-raw SNS envelope whose inner Message is broken JSON',
    message: { body: envelope({ Message: '{"id": "broken-envelope"' }) },
    end: deadLettered('non-retryable'),
  },
  {
    id: 'envelope-no-message',
    what: 'an envelope claiming Type Notification without a Message',
    message: { body: envelope({}) },
    end: deadLettered('non-retryable'),
  },
  {
    id: 'good-envelope',
    what: 'a well-formed non-raw envelope (control case)',
    message: { body: envelope({ Message: body('good-envelope') }) },
    end: succeeded,
  },
  {
    id: 'retry-not-json',
    what: 'x-retry that is not JSON',
    message: { body: body('retry-not-json'), attributes: { 'x-retry': text('attempt=2') } },
    end: deadLettered('invalid-retry-state'),
  },
  {
    id: 'retry-negative',
    what: 'x-retry with a negative attempt',
    message: { body: body('retry-negative'), attributes: { 'x-retry': text(validState(1).replace('"attempt":1', '"attempt":-3')) } },
    end: deadLettered('invalid-retry-state'),
  },
  {
    id: 'retry-nan',
    what: 'x-retry with NaN',
    message: { body: body('retry-nan'), attributes: { 'x-retry': text(validState(1).replace('"attempt":1', '"attempt":NaN')) } },
    end: deadLettered('invalid-retry-state'),
  },
  {
    id: 'retry-nan-string',
    what: 'x-retry with "NaN" as a string',
    message: { body: body('retry-nan-string'), attributes: { 'x-retry': text(validState(1).replace('"attempt":1', '"attempt":"NaN"')) } },
    end: deadLettered('invalid-retry-state'),
  },
  {
    id: 'retry-huge',
    what: 'x-retry with an attempt of 10^9',
    message: { body: body('retry-huge'), attributes: { 'x-retry': text(validState(1_000_000_000)) } },
    end: deadLettered('invalid-retry-state'),
  },
  {
    id: 'retry-future',
    what: 'x-retry with a firstReceivedAt a day in the future',
    message: {
      body: body('retry-future'),
      attributes: { 'x-retry': text(JSON.stringify({ v: 1, attempt: 2, firstReceivedAt: Date.now() + 86_400_000, originalMessageId: 'm' })) },
    },
    end: deadLettered('invalid-retry-state'),
  },
  {
    id: 'retry-version',
    what: 'x-retry of version 2',
    message: { body: body('retry-version'), attributes: { 'x-retry': text(validState(2).replace('"v":1', '"v":2')) } },
    end: deadLettered('invalid-retry-state'),
  },
  {
    id: 'retry-10kb',
    what: 'a 10 KB x-retry',
    message: { body: body('retry-10kb'), attributes: { 'x-retry': text(validState(2).replace('"m-1"', `"${'m'.repeat(10_000)}"`)) } },
    end: deadLettered('invalid-retry-state'),
  },
  {
    id: 'retry-unknown-field',
    what: 'x-retry with an unknown field',
    message: { body: body('retry-unknown-field'), attributes: { 'x-retry': text(validState(2).replace('{', '{"evil":true,')) } },
    end: deadLettered('invalid-retry-state'),
  },
  {
    id: 'retry-valid',
    what: 'a valid x-retry at attempt 2 (control case)',
    message: { body: body('retry-valid'), attributes: { 'x-retry': text(validState(2)) } },
    end: succeeded,
  },
  {
    id: 'retry-exhausted',
    what: 'a valid x-retry at the last attempt, failing again',
    message: { body: body('retry-exhausted', { outcome: 'transient' }), attributes: { 'x-retry': text(validState(20)) } },
    end: deadLettered('max-attempts'),
  },
  {
    id: 'policy-negative',
    what: 'x-retry-policy with a negative delay',
    message: {
      body: body('policy-negative', { outcome: 'transient', failTimes: 1 }),
      attributes: { 'x-retry-policy': text('{"backoff":{"type":"fixed","delayMs":-5}}') },
    },
    end: succeeded,
    warns: true,
  },
  {
    id: 'policy-zero-attempts',
    what: 'x-retry-policy with maxAttempts 0',
    message: { body: body('policy-zero-attempts', { outcome: 'transient', failTimes: 1 }), attributes: { 'x-retry-policy': text('{"maxAttempts":0}') } },
    end: succeeded,
    warns: true,
  },
  {
    id: 'policy-unknown-strategy',
    what: 'x-retry-policy with an unknown strategy',
    message: {
      body: body('policy-unknown-strategy', { outcome: 'transient', failTimes: 1 }),
      attributes: { 'x-retry-policy': text('{"backoff":{"type":"fibonacci"}}') },
    },
    end: succeeded,
    warns: true,
  },
  {
    id: 'policy-huge-delay',
    what: 'x-retry-policy with a delay of 10^9 ms',
    message: {
      body: body('policy-huge-delay', { outcome: 'transient', failTimes: 1 }),
      attributes: { 'x-retry-policy': text('{"backoff":{"type":"fixed","delayMs":1000000000}}') },
    },
    end: succeeded,
    warns: true,
  },
  {
    id: 'policy-not-json',
    what: 'x-retry-policy that is not JSON',
    message: { body: body('policy-not-json', { outcome: 'transient', failTimes: 1 }), attributes: { 'x-retry-policy': text('retry please') } },
    end: succeeded,
    warns: true,
  },
  {
    id: 'ten-attributes',
    what: 'a message with 10 user attributes that must be retried',
    message: {
      body: body('ten-attributes', { outcome: 'transient', failTimes: 1 }),
      attributes: Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`a${i}`, text(`v${i}`)])),
    },
    end: succeeded,
  },
  {
    id: 'throw-string',
    what: 'a handler that throws a string',
    message: { body: body('throw-string', { outcome: 'throw_non_error' }) },
    end: deadLettered('handler-bug'),
  },
  { id: 'hang', what: 'a handler that hangs past the timeout once', message: { body: body('hang', { outcome: 'hang', failTimes: 1 }) }, end: succeeded },
  {
    id: 'unrecoverable',
    what: 'an UnrecoverableError',
    message: { body: body('unrecoverable', { outcome: 'unrecoverable' }) },
    end: deadLettered('non-retryable'),
  },
];

// Each test has its own queues and worker, and mostly waits on retries and restarts: they run at once.
const suite = emulatorSuite({ concurrent: true });

/** DLQ bodies that are not simulation JSON are found by their exact text. */
function idReader(cases: readonly Case[]) {
  const byBody = new Map(cases.map((c) => [c.message.body, c.id]));
  return (message: Message) => {
    if (byBody.has(message.Body ?? '')) return byBody.get(message.Body ?? '');
    try {
      return (JSON.parse(message.Body ?? '') as { id?: string }).id;
    } catch {
      return undefined;
    }
  };
}

async function queueEmpty(queues: QueuePair) {
  const depth = await suite.emulator.depth(queues.queueUrl);
  return depth.visible + depth.inFlight + depth.delayed === 0 ? true : undefined;
}

// The batch form must end every case as the per-message handler does.
describe.concurrent.each(['simulation', 'simulation-batch'])('bad input corpus against the worker process (WORKER_HANDLER=%s)', (handler) => {
  it(`every one of ${CASES.length} cases reaches its defined end, the worker never crashes, nothing is lost`, async () => {
    const queues = await suite.emulator.createQueues({ visibilityTimeoutSeconds: 5 });
    const ledger = join(mkdtempSync(join(tmpdir(), 'requeue-corpus-')), 'ledger.jsonl');
    // One by one: a 1 MiB message fills a whole batch request on its own.
    for (const { message } of CASES) {
      await suite.emulator.sqs.send(new SendMessageCommand({ QueueUrl: queues.queueUrl, MessageBody: message.body, MessageAttributes: message.attributes }));
    }
    const worker: WorkerProcess = await startWorkerProcess({
      WORKER_QUEUE_URL: queues.queueUrl,
      WORKER_DLQ_URL: queues.dlqUrl,
      AWS_ENDPOINT_URL: suite.emulator.endpoint,
      WORKER_HANDLER: handler,
      WORKER_WAIT_TIME_SECONDS: '1',
      WORKER_HANDLER_TIMEOUT_MS: '1000',
      SIMULATION_LEDGER: ledger,
      // Info, for the start line that says whether a batch handler runs.
      LOG_LEVEL: 'info',
      RETRY_POLICY: JSON.stringify({ types: { TEMPORARY: { backoff: { type: 'fixed', delayMs: 0 } }, DEFAULT: { backoff: { type: 'fixed', delayMs: 0 } } } }),
    });
    try {
      await waitUntilReady(worker);
      await eventually(() => queueEmpty(queues), 60_000, 'the corpus to be consumed');
      expect(worker.child.exitCode).toBeNull();
      expect(worker.output().includes('"batch":{"size":10,"windowMs":50}')).toBe(handler === 'simulation-batch');
      const deadLetters = await suite.emulator.drain(queues.dlqUrl);
      const result = account(new Map(CASES.map((c) => [c.id, c.end])), ledger, deadLetters, idReader(CASES));
      expect(result.lost).toEqual([]);
      expect(result.misplaced).toEqual([]);
      expect(result.succeeded + Object.values(result.deadLettered).reduce((a, b) => a + b, 0)).toBe(CASES.length);
      const warnings = worker
        .output()
        .split('\n')
        .filter((line) => line.includes('ignoring invalid x-retry-policy'));
      expect(warnings.length).toBeGreaterThanOrEqual(CASES.filter((c) => c.warns).length);
      // Ignored overrides fall back to the worker's policy: retried once, then done.
      expect(
        readLedger(ledger)
          .filter((l) => l.id.startsWith('policy-'))
          .map((l) => l.attempt),
      ).toEqual([2, 2, 2, 2, 2]);
    } finally {
      worker.child.kill('SIGKILL');
    }
  }, 120_000);
});

describe.concurrent('SQS at the door', () => {
  it('an empty body never enters the system: SQS refuses it at the door', async () => {
    const queues = await suite.emulator.createQueues();
    await expect(suite.emulator.sqs.send(new SendMessageCommand({ QueueUrl: queues.queueUrl, MessageBody: '' }))).rejects.toThrow(/MessageBody/);
    await expect(suite.emulator.sqs.send(new SendMessageCommand({ QueueUrl: queues.queueUrl, MessageBody: 'a\u0001b' }))).rejects.toThrow(/Invalid characters/);
  });
});

describe.concurrent('a handler that crashes the process (poison pill)', () => {
  it('reaches the DLQ through the redrive backstop while the worker is restarted as it dies, and healthy work goes on', async () => {
    // Visibility (2 s) outlasts the long-poll wait (1 s): a killed worker's pending
    // receives are over before the pill reappears, so each receive is a real delivery.
    const queues = await suite.emulator.createQueues({ visibilityTimeoutSeconds: 2, maxReceiveCount: 2 });
    const ledger = join(mkdtempSync(join(tmpdir(), 'requeue-corpus-')), 'ledger.jsonl');
    const workers: WorkerProcess[] = [];
    const exited = (w: WorkerProcess) => w.child.exitCode !== null || w.child.signalCode !== null;
    await sendAll(suite.emulator.sqs, queues.queueUrl, [{ body: body('pill', { outcome: 'crash' }) }]);
    try {
      await eventually(
        async () => {
          if ((await suite.emulator.depth(queues.dlqUrl)).visible === 1) return true;
          // A supervisor, as ECS would be: start a worker whenever none is alive.
          if (workers.every(exited)) {
            workers.push(
              await startWorkerProcess({
                WORKER_QUEUE_URL: queues.queueUrl,
                WORKER_DLQ_URL: queues.dlqUrl,
                AWS_ENDPOINT_URL: suite.emulator.endpoint,
                WORKER_WAIT_TIME_SECONDS: '1',
                SIMULATION_LEDGER: ledger,
              }),
            );
          }
          return undefined;
        },
        45_000,
        'the poison pill in the DLQ',
      );
      expect(workers.filter((w) => w.child.signalCode === 'SIGKILL')).toHaveLength(2);
      const healthy = ['a', 'b', 'c'];
      await sendAll(
        suite.emulator.sqs,
        queues.queueUrl,
        healthy.map((id) => ({ body: body(id) })),
      );
      await eventually(() => (new Set(readLedger(ledger).map((l) => l.id)).size === 3 ? true : undefined), 20_000, 'the healthy messages');
      const result = account(
        new Map<string, ExpectedEnd>([['pill', deadLettered(REDRIVE_BACKSTOP)], ...healthy.map((id): [string, ExpectedEnd] => [id, succeeded])]),
        ledger,
        await suite.emulator.drain(queues.dlqUrl),
      );
      expect(result).toMatchObject({ lost: [], misplaced: [], succeeded: 3, deadLettered: { [REDRIVE_BACKSTOP]: 1 } });
    } finally {
      for (const worker of workers) worker.child.kill('SIGKILL');
    }
  }, 60_000);
});

describe.concurrent('hostile handler failures against the engine', () => {
  const hostile: Record<string, () => Promise<never>> = {
    'throw-null': async () => {
      throw null;
    },
    'throw-undefined-rejection': () => Promise.reject(),
    'throw-getter-object': async () => {
      throw Object.defineProperty({}, 'message', {
        get() {
          throw new Error('getter exploded');
        },
      });
    },
    'throw-proxy': async () => {
      throw new Proxy(
        {},
        {
          get: () => {
            throw new Error('trap');
          },
          getPrototypeOf: () => {
            throw new Error('trap');
          },
        },
      );
    },
    'throw-number': async () => {
      throw 42;
    },
  };

  it('dead-letters each as a handler bug, with the worker still running', async () => {
    const queues = await suite.emulator.createQueues();
    const handler: MessageHandler = async (message) => {
      const id = (message.body as { id: string }).id;
      await hostile[id]!();
    };
    const worker = new SqsWorker({
      sqs: suite.emulator.sqs,
      queueUrl: queues.queueUrl,
      deadLetterQueueUrl: queues.dlqUrl,
      handler,
      retryPolicy: createRetryPolicy(),
      waitTimeSeconds: 1,
    });
    await worker.start();
    try {
      const ids = Object.keys(hostile);
      await sendAll(
        suite.emulator.sqs,
        queues.queueUrl,
        ids.map((id) => ({ body: JSON.stringify({ id }) })),
      );
      const deadLetters = await eventually(
        async () => ((await suite.emulator.depth(queues.dlqUrl)).visible === ids.length ? suite.emulator.drain(queues.dlqUrl) : undefined),
        20_000,
        'every hostile failure in the DLQ',
      );
      const result = account(new Map(ids.map((id) => [id, deadLettered('handler-bug')])), '/nonexistent-ledger', deadLetters);
      expect(result.misplaced).toEqual([]);
      expect(result.lost).toEqual([]);
      expect(worker.health()).toMatchObject({ live: true, ready: true });
    } finally {
      await worker.stop({ drainTimeoutMs: 0 });
    }
  });
});
