import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { parseDeadLetterRecord } from '@requeue/retry/engine';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../support/emulator.js';
import { sendAll } from '../support/publish.js';
import { emulatorSuite } from '../support/suite.js';
import { waitUntilReady } from '../support/worker-process.js';

const suite = emulatorSuite();
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** A loopback HTTP server that records what reaches it and answers 200. */
async function recorder(): Promise<{ url: string; port: number; seen: string[] }> {
  const seen: string[] = [];
  const server = createServer((request, response) => {
    seen.push(`${request.method} ${request.url}`);
    response.writeHead(200).end('{}');
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, port, seen };
}

describe('webhook egress with a proxy in the environment', () => {
  it('ignores HTTP_PROXY under NODE_USE_ENV_PROXY: a loopback target is refused, and the proxy sees nothing', async () => {
    const queues = await suite.emulator.createQueues();
    const proxy = await recorder();
    const receiver = await recorder();
    const worker = await suite.workerProcess(queues, { WORKER_HANDLER: 'webhook', NODE_USE_ENV_PROXY: '1', HTTP_PROXY: proxy.url, http_proxy: proxy.url });
    await waitUntilReady(worker);
    const body = JSON.stringify({ url: `http://localhost:${receiver.port}/hook`, payload: { job: 1 } });
    await suite.emulator.sqs.send(new SendMessageCommand({ QueueUrl: queues.queueUrl, MessageBody: body }));

    const [dead] = await eventually(
      async () => {
        const letters = await suite.emulator.drain(queues.dlqUrl);
        return letters.length ? letters : undefined;
      },
      20_000,
      'the refused message in the DLQ',
    );
    expect(parseDeadLetterRecord(dead!.MessageAttributes!['x-dead-letter']!.StringValue!)).toMatchObject({
      reason: 'non-retryable',
      errorType: 'EGRESS_REFUSED',
    });
    expect(proxy.seen).toEqual([]);
    expect(receiver.seen).toEqual([]);
  });
});

describe('publisher-chosen hosts (2,000 distinct refused targets)', () => {
  it('make no dependency state: the health body stays small and the EMF flush names no per-host dependency', async () => {
    const queues = await suite.emulator.createQueues();
    const worker = await suite.workerProcess(queues, { WORKER_HANDLER: 'webhook', LOG_LEVEL: 'error' });
    await waitUntilReady(worker);
    const messages = Array.from({ length: 2000 }, (_, i) => ({ body: JSON.stringify({ url: `http://10.${(i >> 8) & 255}.${i & 255}.1/hook`, payload: i }) }));
    await sendAll(suite.emulator.sqs, queues.queueUrl, messages);
    await eventually(async () => ((await suite.emulator.depth(queues.dlqUrl)).visible === 2000 ? true : undefined), 120_000, 'all 2,000 refused into the DLQ');

    const ready = await fetch(`http://127.0.0.1:${worker.healthPort}/health/ready`);
    const body = await ready.text();
    const consumers = (JSON.parse(body) as { info: Record<string, { consumers: Record<string, { dependencies: unknown[] }> }> }).info['sqs-worker']!.consumers;
    const dependencies = Object.values(consumers).flatMap((consumer) => consumer.dependencies);
    process.stdout.write(`2,000 refused hosts: ${dependencies.length} dependencies in a ${body.length}-byte health body\n`);
    expect(dependencies.length).toBeLessThanOrEqual(1);
    expect(body.length).toBeLessThan(4096);

    // The shutdown flushes the metrics: count the distinct Dependency dimensions written.
    worker.child.kill('SIGTERM');
    await worker.exited;
    const emf = worker
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{') && line.includes('"_aws":{'));
    expect(emf.length).toBeGreaterThan(0);
    const perDependency = new Set(
      emf.flatMap((line) => {
        const dependency = (JSON.parse(line) as { Dependency?: string }).Dependency;
        return dependency === undefined ? [] : [dependency];
      }),
    );
    process.stdout.write(`2,000 refused hosts: ${perDependency.size} per-dependency metric series in the flush\n`);
    expect(perDependency.size).toBeLessThanOrEqual(1);
  }, 180_000);
});
