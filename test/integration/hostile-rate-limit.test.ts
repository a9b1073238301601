import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { emulatorSuite } from '../support/suite.js';
import { waitUntilReady } from '../support/worker-process.js';

const suite = emulatorSuite();
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

const ORDINARY_PER_SECOND = 8;
const SECONDS = 10;
/** Half the Retry-After: a pause of the whole host on each 429 would cover all of the run. */
const HOSTILE_EVERY_MS = 2500;
/** A delivery counts when it lands within this long of its publish: the 60-s window of the finding, scaled to this run. */
const ON_TIME_MS = 3000;

/** A shared host: 200 for every job, 429 with Retry-After: 5 on the one path a hostile publisher points at. */
async function sharedHost(): Promise<{ port: number; delivered: Map<number, number> }> {
  const delivered = new Map<number, number>();
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      if (request.url === '/limited') return void response.writeHead(429, { 'retry-after': '5' }).end();
      const { job } = JSON.parse(body) as { job: number };
      if (!delivered.has(job)) delivered.set(job, Date.now());
      response.writeHead(200).end('{}');
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, delivered };
}

describe('one hostile 429 every 2.5 s on a shared host (webhook worker process, fauxqs)', () => {
  it(`delivers at least 90% of the host's other jobs on time`, async () => {
    const queues = await suite.emulator.createQueues();
    const host = await sharedHost();
    const origin = `http://127.0.0.1:${host.port}`;
    const worker = await suite.workerProcess(queues, {
      WORKER_HANDLER: 'webhook',
      WEBHOOK_URL: `${origin}/hook`,
      WEBHOOK_ALLOW_HOSTS: `127.0.0.1:${host.port}`,
      LOG_LEVEL: 'error',
    });
    await waitUntilReady(worker);
    const send = (body: object) => suite.emulator.sqs.send(new SendMessageCommand({ QueueUrl: queues.queueUrl, MessageBody: JSON.stringify(body) }));

    const publishedAt = new Map<number, number>();
    const started = Date.now();
    let nextHostileAt = started;
    for (let job = 0; job < ORDINARY_PER_SECOND * SECONDS; job++) {
      const due = started + (job * 1000) / ORDINARY_PER_SECOND;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - Date.now())));
      if (Date.now() >= nextHostileAt) {
        await send({ url: `${origin}/limited`, payload: { hostile: true } });
        nextHostileAt += HOSTILE_EVERY_MS;
      }
      publishedAt.set(job, Date.now());
      await send({ job });
    }
    // Until every job landed, or the last one's on-time window is over.
    const lastDue = Date.now() + ON_TIME_MS;
    while (host.delivered.size < publishedAt.size && Date.now() < lastDue) await new Promise((resolve) => setTimeout(resolve, 50));

    const latencies = [...publishedAt].map(([job, at]) => (host.delivered.get(job) ?? Number.POSITIVE_INFINITY) - at).sort((a, b) => a - b);
    const onTime = latencies.filter((ms) => ms <= ON_TIME_MS).length / latencies.length;
    const p50 = latencies[Math.floor(latencies.length / 2)]!;
    process.stdout.write(
      `hostile 429 every ${HOSTILE_EVERY_MS / 1000} s: ${(onTime * 100).toFixed(1)}% of ${latencies.length} jobs delivered within ${ON_TIME_MS} ms; p50 ${p50} ms\n`,
    );
    expect(onTime).toBeGreaterThanOrEqual(0.9);
  }, 90_000);
});
