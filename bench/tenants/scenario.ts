import { SendMessageBatchCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { SqsWorker, type TenantOptions, type WorkerMessage } from '@requeue/sqs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { BenchEmulator } from '../peers/bench-emulator.js';

/** The figures: 10 handlers of 20 ms (500 messages/s at most); B steady, A at 100 times B's rate. */
export const HANDLERS = 10;
export const HANDLER_MS = 20;
export const B_PER_SECOND = 5;
export const A_PER_SECOND = 100 * B_PER_SECOND;
export const BURST_SECONDS = 4;

const credentials = { accessKeyId: 'test', secretAccessKey: 'test' };
let queues = 0;

/** A fresh queue and DLQ on the bench emulator, and a client for them; `close` deletes both. */
async function freshQueue(emulator: BenchEmulator) {
  const name = `tenants-${process.pid}-${queues++}`;
  const create = (queue: string) => emulator.control<{ queueUrl: string }>('create', { queue, attributes: { VisibilityTimeout: '30' } });
  const [{ queueUrl }, { queueUrl: dlqUrl }] = await Promise.all([create(name), create(`${name}-dlq`)]);
  const sqs = new SQSClient({ endpoint: emulator.endpoint, region: 'us-east-1', credentials });
  return {
    name,
    queueUrl,
    dlqUrl,
    sqs,
    async close() {
      sqs.destroy();
      await Promise.all([emulator.control('delete', { queue: name }), emulator.control('delete', { queue: `${name}-dlq` })]);
    },
  };
}

function workerOn(queue: Awaited<ReturnType<typeof freshQueue>>, tenants: TenantOptions | undefined, handler: (message: WorkerMessage) => Promise<void>) {
  return new SqsWorker({
    sqs: queue.sqs,
    queueUrl: queue.queueUrl,
    deadLetterQueueUrl: queue.dlqUrl,
    maxInFlight: HANDLERS,
    visibilityTimeoutSeconds: 30,
    // Long polls return as soon as a message arrives either way; 1 s lets each run stop at once.
    waitTimeSeconds: 1,
    handler,
    ...(tenants ? { tenants } : {}),
  });
}

/** Calls `send(i)` at `perSecond` for `seconds` from `t0`, on schedule whatever each send takes. */
async function paced(t0: number, perSecond: number, seconds: number, send: (i: number) => Promise<unknown>): Promise<void> {
  const sends: Promise<unknown>[] = [];
  for (let i = 0; i < perSecond * seconds; i++) {
    const at = t0 + (i * 1000) / perSecond;
    const wait = at - performance.now();
    if (wait > 0) await sleep(wait);
    sends.push(send(i));
  }
  await Promise.all(sends);
}

export interface DwellRun {
  /** Dwell of each of B's messages: from SQS taking it (SentTimestamp) to its handler's start, ms. */
  bDwellMs: number[];
}

/**
 * B publishes at its steady rate for the burst's length; with `withA`, A publishes at 100
 * times that rate over the same seconds (batches of 10). Every handler takes 20 ms.
 */
export interface DwellSpec {
  withA: boolean;
  /** Tenants read from `body.tenant`, at their defaults but for what is given here. */
  tenants?: Omit<TenantOptions, 'key'>;
}

export async function dwellRun(emulator: BenchEmulator, options: DwellSpec): Promise<DwellRun> {
  const queue = await freshQueue(emulator);
  const bDwellMs: number[] = [];
  let done = 0;
  const tenants: TenantOptions | undefined = options.tenants ? { key: 'body.tenant', ...options.tenants } : undefined;
  const worker = workerOn(queue, tenants, async ({ body, sentAt }) => {
    if ((body as { tenant: string }).tenant === 'b') bDwellMs.push(Date.now() - sentAt);
    await sleep(HANDLER_MS);
    done++;
  });
  await worker.start();
  const t0 = performance.now() + 50;
  const total = B_PER_SECOND * BURST_SECONDS + (options.withA ? A_PER_SECOND * BURST_SECONDS : 0);
  const b = paced(t0, B_PER_SECOND, BURST_SECONDS, () =>
    queue.sqs.send(new SendMessageCommand({ QueueUrl: queue.queueUrl, MessageBody: JSON.stringify({ tenant: 'b' }) })),
  );
  const a = options.withA
    ? paced(t0, A_PER_SECOND / 10, BURST_SECONDS, (i) => {
        const entries = Array.from({ length: 10 }, (_, k) => ({ Id: String(k), MessageBody: JSON.stringify({ tenant: 'a', n: i * 10 + k }) }));
        return queue.sqs.send(new SendMessageBatchCommand({ QueueUrl: queue.queueUrl, Entries: entries }));
      })
    : Promise.resolve();
  await Promise.all([a, b]);
  while (done < total) await sleep(20);
  await worker.stop();
  await queue.close();
  return { bDwellMs };
}

/** The `p`th percentile (0-100) of `values`, nearest rank. */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}
