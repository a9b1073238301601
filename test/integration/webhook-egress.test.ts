import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { parseDeadLetterRecord } from '@requeue/retry';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../support/emulator.js';
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

    const [dead] = await eventually(async () => {
      const letters = await suite.emulator.drain(queues.dlqUrl);
      return letters.length ? letters : undefined;
    }, 20_000, 'the refused message in the DLQ');
    expect(parseDeadLetterRecord(dead!.MessageAttributes!['x-dead-letter']!.StringValue!)).toMatchObject({ reason: 'non-retryable', errorType: 'EGRESS_REFUSED' });
    expect(proxy.seen).toEqual([]);
    expect(receiver.seen).toEqual([]);
  });
});
