import { ChangeMessageVisibilityCommand, CreateQueueCommand, ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { execFile, spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { deadLetterFrom } from '../support/dead-letter-sources.js';
import { eventually, type QueuePair } from '../support/emulator.js';
import { emulatorSuite } from '../support/suite.js';
import { readSimulationLedger as readLedger } from '@requeue/local-aws/simulation-ledger';
import { sendAll, simulation } from '../support/publish.js';
import { CLI, runDlqCli } from '../support/dlq-cli.js';
import { startWorkerProcess, waitUntilReady } from '../support/worker-process.js';

const run = promisify(execFile);

const suite = emulatorSuite({ concurrent: true });

/** Runs `requeue dlq ...` against the emulator; resolves with stdout, stderr and the exit code. */
const dlq = (queues: QueuePair, ...args: string[]) => runDlqCli(suite.emulator.endpoint, queues.dlqUrl, args);

async function startWorker(queues: QueuePair, ledger: string, retryPolicy: object) {
  const worker = await startWorkerProcess({
    WORKER_QUEUE_URL: queues.queueUrl,
    WORKER_DLQ_URL: queues.dlqUrl,
    AWS_ENDPOINT_URL: suite.emulator.endpoint,
    WORKER_WAIT_TIME_SECONDS: '1',
    SIMULATION_LEDGER: ledger,
    RETRY_POLICY: JSON.stringify(retryPolicy),
  });
  suite.track(worker);
  await waitUntilReady(worker);
  return worker;
}

const FAST = { types: { TEMPORARY: { backoff: { type: 'fixed', delayMs: 0 } } } };

/** A DLQ holding 2 max-attempts messages (transient, failing 3 times, with a budget of 2) and 1 non-retryable. */
async function populatedDlq() {
  const queues = await suite.emulator.createQueues();
  const ledger = join(mkdtempSync(join(tmpdir(), 'requeue-dlq-')), 'ledger.jsonl');
  await sendAll(suite.emulator.sqs, queues.queueUrl, [
    { ...simulation('flaky-1', { outcome: 'transient', failTimes: 3 }), attributes: { tenant: { DataType: 'String', StringValue: 'acme' } } },
    simulation('flaky-2', { outcome: 'transient', failTimes: 3 }),
    simulation('broken', { outcome: 'permanent' }),
  ]);
  const worker = await startWorker(queues, ledger, { ...FAST, maxAttempts: 2 });
  await eventually(async () => ((await suite.emulator.depth(queues.dlqUrl)).visible === 3 ? true : undefined), 20_000, '3 dead letters');
  // Gracefully: a killed worker's pending long poll would swallow the first replayed message.
  worker.child.kill('SIGTERM');
  await worker.exited;
  return { queues, ledger };
}

async function releaseAll(queueUrl: string, messages: Array<{ ReceiptHandle?: string }>) {
  for (const message of messages) {
    await suite.emulator.sqs.send(new ChangeMessageVisibilityCommand({ QueueUrl: queueUrl, ReceiptHandle: message.ReceiptHandle!, VisibilityTimeout: 0 }));
  }
}

describe.concurrent('requeue dlq', () => {
  it('list shows every message with its reason and leaves them all in the DLQ; filters and --json work', async () => {
    const { queues } = await populatedDlq();
    const all = await dlq(queues, 'list');
    expect(all.code).toBe(0);
    expect(all.stdout).toMatch(/max-attempts\s+TEMPORARY\s+2/);
    expect(all.stdout).toMatch(/non-retryable/);
    expect(all.stdout).toContain('3 message(s)');

    const json = JSON.parse((await dlq(queues, 'list', '--reason', 'max-attempts', '--json')).stdout) as Array<Record<string, unknown>>;
    expect(json.map((m) => m.reason)).toEqual(['max-attempts', 'max-attempts']);
    expect(json[0]).toMatchObject({ errorType: 'TEMPORARY', attempts: 2, sourceQueue: queues.queueUrl });
    expect([json[0]!.body, json[1]!.body].sort()).toEqual([
      simulation('flaky-1', { outcome: 'transient', failTimes: 3 }).body,
      simulation('flaky-2', { outcome: 'transient', failTimes: 3 }).body,
    ]);

    expect(JSON.parse((await dlq(queues, 'list', '--error-type', 'PERMANENT', '--json')).stdout)).toHaveLength(1);
    expect(JSON.parse((await dlq(queues, 'list', '--older-than', '1h', '--json')).stdout)).toHaveLength(0);
    expect(JSON.parse((await dlq(queues, 'list', '--limit', '1', '--json')).stdout)).toHaveLength(1);
    // The URL as the emulator names it (sqs.<region>.localhost), with no endpoint configured: the
    // URL's own origin on loopback is the endpoint.
    const asPrinted = queues.dlqUrl.replace(/^http:\/\/[^/]+/, `http://sqs.us-east-1.localhost:${new URL(suite.emulator.endpoint).port}`);
    const direct = await run(process.execPath, [CLI, 'dlq', 'list', '--json', '--dlq', asPrinted], { env: { PATH: process.env.PATH } });
    expect(JSON.parse(direct.stdout)).toHaveLength(3);
    // Listing consumed nothing: every message is visible again at once.
    expect(await suite.emulator.depth(queues.dlqUrl)).toMatchObject({ visible: 3, inFlight: 0 });
  }, 60_000);

  it("list --json prints the whole document into a pipe its reader drains late (600 dead letters, well past a pipe's 64 KiB)", async () => {
    const queues = await suite.emulator.createQueues();
    const bodies = Array.from({ length: 600 }, (_, i) => simulation(`dead-${i}`, { outcome: 'permanent', note: 'x'.repeat(200) }));
    await sendAll(suite.emulator.sqs, queues.dlqUrl, bodies);
    const child = spawn(process.execPath, [CLI, 'dlq', 'list', '--json', '--dlq', queues.dlqUrl], {
      env: { PATH: process.env.PATH, AWS_ENDPOINT_URL: suite.emulator.endpoint, AWS_REGION: 'us-east-1' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const chunks: Buffer[] = [];
    child.stdout.pause();
    const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
    // The reader is busy until the CLI has read every dead letter and released them, which it
    // does just before it prints: by then the document waits in the pipe.
    let sawInFlight = false;
    await eventually(
      async () => {
        const depth = await suite.emulator.depth(queues.dlqUrl);
        sawInFlight ||= depth.inFlight > 0;
        return sawInFlight && depth.inFlight === 0 ? true : undefined;
      },
      30_000,
      'the CLI to read and release every dead letter',
    );
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stdout.resume();
    expect(await exited).toBe(0);
    const listed = JSON.parse(Buffer.concat(chunks).toString()) as Array<{ body: string }>;
    expect(listed).toHaveLength(600);
    expect(new Set(listed.map((entry) => entry.body))).toEqual(new Set(bodies.map((entry) => entry.body)));
  }, 60_000);

  it('replay --reset-attempts sends max-attempts messages back byte-identical with their attributes, and they succeed', async () => {
    const { queues, ledger } = await populatedDlq();
    const dryRun = await dlq(queues, 'replay', '--reason', 'max-attempts', '--dry-run');
    expect(dryRun.code).toBe(0);
    expect(dryRun.stdout).toContain('2 message(s) would be replayed (dry run: nothing changed)');
    expect(await suite.emulator.depth(queues.dlqUrl)).toMatchObject({ visible: 3, inFlight: 0 });
    expect(await suite.emulator.depth(queues.queueUrl)).toMatchObject({ visible: 0 });

    const replayed = await dlq(queues, 'replay', '--reason', 'max-attempts', '--reset-attempts', '--rate', '20/s', '--json');
    expect(replayed.code).toBe(0);
    expect(JSON.parse(replayed.stdout).replayed).toHaveLength(2);
    // Only the non-retryable message is left in the DLQ.
    expect(await suite.emulator.depth(queues.dlqUrl)).toMatchObject({ visible: 1 });
    const back = await suite.emulator.drain(queues.queueUrl, 1);
    expect(back.map((m) => m.Body).sort()).toEqual([
      simulation('flaky-1', { outcome: 'transient', failTimes: 3 }).body,
      simulation('flaky-2', { outcome: 'transient', failTimes: 3 }).body,
    ]);
    const withTenant = back.find((m) => m.Body!.includes('flaky-1'))!;
    expect(withTenant.MessageAttributes?.tenant?.StringValue).toBe('acme');
    // A fresh budget: no x-retry, no x-dead-letter.
    expect(Object.keys(withTenant.MessageAttributes ?? {}).sort()).toEqual(['tenant']);

    // With a fresh budget wider than the three failures, the replayed messages now succeed.
    await releaseAll(queues.queueUrl, back);
    await startWorker(queues, ledger, { ...FAST, maxAttempts: 10 });
    await eventually(() => (new Set(readLedger(ledger).map((l) => l.id)).size === 2 ? true : undefined), 20_000, 'the replayed messages to succeed');
  }, 60_000);

  it('replay without --reset-attempts keeps the history, so an exhausted message is exhausted again', async () => {
    const { queues } = await populatedDlq();
    const replayed = await dlq(queues, 'replay', '--reason', 'max-attempts', '--max', '1', '--json');
    expect(JSON.parse(replayed.stdout).replayed).toHaveLength(1);
    const [back] = await suite.emulator.drain(queues.queueUrl, 1);
    const state = JSON.parse(back!.MessageAttributes!['x-retry']!.StringValue!) as { attempt: number };
    expect(state.attempt).toBe(3);
  }, 60_000);

  it('discard needs --yes (there is no terminal to ask on), then deletes only what matches and reports it', async () => {
    const { queues } = await populatedDlq();
    const refused = await dlq(queues, 'discard', '--reason', 'non-retryable');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/rerun with --yes/);
    expect(await suite.emulator.depth(queues.dlqUrl)).toMatchObject({ visible: 3, inFlight: 0 });

    const discarded = await dlq(queues, 'discard', '--reason', 'non-retryable', '--yes');
    expect(discarded.code).toBe(0);
    expect(discarded.stdout).toContain('deleted 1 message(s)');
    expect(discarded.stdout).toContain('broken');
    expect(await suite.emulator.depth(queues.dlqUrl)).toMatchObject({ visible: 2, inFlight: 0 });
  }, 60_000);

  it('gives one clear line for a missing queue, a bad filter, an unsupported redrive, an unreachable endpoint and no credentials', async () => {
    const queues = await suite.emulator.createQueues();
    // With credentials in the URL: the line names the queue without them, for list, triage and redrive alike.
    const secretUrl = `${queues.dlqUrl.replace('://', '://ops:hunter2@')}-nope`;
    for (const command of [['list'], ['triage'], ['redrive', '--all']]) {
      const missing = await dlq({ ...queues, dlqUrl: secretUrl }, ...command);
      expect(missing.code).toBe(1);
      expect(missing.stderr.trim().split('\n')).toHaveLength(1);
      expect(missing.stderr).toMatch(/no queue http:\/\/\[redacted\]@.*-nope/);
      expect(missing.stdout + missing.stderr).not.toContain('hunter2');
    }

    const badFilter = await dlq(queues, 'list', '--older-than', 'yesterday');
    expect(badFilter.code).toBe(2);
    expect(badFilter.stderr).toMatch(/--older-than takes a duration/);
    expect((await dlq(queues, 'list', '--reason', 'bored')).stderr).toMatch(/--reason must be one of/);

    const redrive = await dlq(queues, 'redrive', '--move-task');
    expect(redrive.code).toBe(1);
    expect(redrive.stderr).toMatch(/does not support StartMessageMoveTask.*requeue dlq redrive --all/);

    const unreachable = await run(process.execPath, [CLI, 'dlq', 'list'], {
      env: { PATH: process.env.PATH, AWS_ENDPOINT_URL: 'http://127.0.0.1:9', AWS_REGION: 'us-east-1' },
    }).catch((error: { stderr: string; code: number }) => error);
    expect((unreachable as { code: number }).code).toBe(1);
    const noCredentials = await run(process.execPath, [CLI, 'dlq', 'list', '--dlq', 'https://sqs.us-east-1.amazonaws.com/123456789012/jobs-dlq'], {
      env: { PATH: process.env.PATH, HOME: mkdtempSync(join(tmpdir(), 'requeue-home-')), AWS_EC2_METADATA_DISABLED: 'true' },
    }).catch((error: { stderr: string; code: number }) => error);
    expect((noCredentials as { code: number }).code).toBe(1);
    expect((noCredentials as { stderr: string }).stderr).toMatch(/^requeue: no AWS credentials found: configure the standard chain/);
    expect((unreachable as { stderr: string }).stderr).toMatch(/nothing answers at http:\/\/127.0.0.1:9/);
  }, 60_000);

  it('finds the local stack on the port npm start was given (WORKER_EMULATOR_PORT), and names it once when it is not there', async () => {
    await suite.emulator.sqs.send(new CreateQueueCommand({ QueueName: 'Requeue-jobs-dlq' }));
    const port = new URL(suite.emulator.endpoint).port;
    const cli = (env: Record<string, string>) =>
      run(process.execPath, [CLI, 'dlq', 'list'], { env: { PATH: process.env.PATH, AWS_REGION: 'us-east-1', ...env } }).then(
        ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
        (error: { code: number; stdout: string; stderr: string }) => error,
      );
    const found = await cli({ WORKER_EMULATOR_PORT: port });
    expect(found.code, found.stderr).toBe(0);
    const elsewhere = await cli({ WORKER_EMULATOR_PORT: '9' });
    expect(elsewhere.code).toBe(1);
    expect(elsewhere.stderr.match(/127\.0\.0\.1:9/g)).toHaveLength(1);
    expect(elsewhere.stderr).toMatch(/nothing answers at http:\/\/127\.0\.0\.1:9: is `npm start`.*same WORKER_EMULATOR_PORT/);
  }, 30_000);
});

describe.concurrent('requeue dlq replay on FIFO queues', () => {
  it('sends a dead letter back into its own message group, with a deduplication id', async () => {
    const queues = await suite.emulator.createQueues({ fifo: true });
    const record = {
      reason: 'non-retryable',
      errorType: 'PERMANENT',
      error: 'declined',
      attempts: 1,
      firstReceivedAt: Date.now(),
      deadLetteredAt: Date.now(),
      sourceQueue: queues.queueUrl,
      originalMessageId: 'o-1',
      messageGroupId: 'customer-42',
    };
    await suite.emulator.sqs.send(
      new SendMessageCommand({
        QueueUrl: queues.dlqUrl,
        MessageBody: '{"id":"order-7"}',
        // As the worker writes it: a group of its own in the DLQ, the source group in the record.
        MessageGroupId: 'dl-1',
        MessageDeduplicationId: 'dl-1',
        MessageAttributes: { 'x-dead-letter': { DataType: 'String', StringValue: JSON.stringify(record) } },
      }),
    );
    const replayed = await dlq(queues, 'replay', '--reset-attempts');
    expect(replayed.code).toBe(0);
    const [message] = await eventually(
      async () => {
        const out = await suite.emulator.sqs.send(new ReceiveMessageCommand({ QueueUrl: queues.queueUrl, MessageSystemAttributeNames: ['All'] }));
        return out.Messages?.length ? out.Messages : undefined;
      },
      10_000,
      'the replayed message',
    );
    expect(message!.Body).toBe('{"id":"order-7"}');
    expect(message!.Attributes?.MessageGroupId).toBe('customer-42');
    expect((await suite.emulator.depth(queues.dlqUrl)).visible).toBe(0);
  });
});

describe.concurrent('requeue dlq replay follows x-dead-letter only within the DLQ’s account and region', () => {
  it('skips a forged source queue on another host, sending nothing there, and keeps the message; --to sends it where the operator says', async () => {
    const queues = await suite.emulator.createQueues();
    const seen: string[] = [];
    const forger = createServer((request, response) => {
      seen.push(`${request.method} ${request.url} ${String(request.headers.authorization ?? '')}`);
      response.writeHead(500).end();
    });
    await new Promise<void>((resolve) => forger.listen(0, '127.0.0.1', resolve));
    const forgedQueue = `http://127.0.0.1:${(forger.address() as AddressInfo).port}/000000000000/stolen`;
    try {
      await suite.emulator.sqs.send(
        new SendMessageCommand({
          QueueUrl: queues.dlqUrl,
          MessageBody: '{"card":"4111"}',
          MessageAttributes: { 'x-dead-letter': deadLetterFrom(forgedQueue, 'o-2') },
        }),
      );
      const refused = await dlq(queues, 'replay', '--json');
      expect(refused.code).toBe(0);
      const result = JSON.parse(refused.stdout) as { replayed: unknown[]; skipped: Array<{ why: string }> };
      expect(result.replayed).toEqual([]);
      // Where the endpoint lists the DLQ's source queues (moto), the forged one is not among
      // them; where it cannot (fauxqs), it is outside the DLQ's account and region.
      expect(result.skipped[0]!.why).toMatch(/(outside the DLQ's account and region|is not a source queue of this DLQ).*: pass --to/);
      expect(seen).toEqual([]);
      await eventually(async () => ((await suite.emulator.depth(queues.dlqUrl)).visible === 1 ? true : undefined), 5_000, 'the message back in the DLQ');

      const sent = await dlq(queues, 'replay', '--to', queues.queueUrl, '--json');
      expect(JSON.parse(sent.stdout).replayed).toHaveLength(1);
      expect(seen).toEqual([]);
    } finally {
      await new Promise((resolve) => forger.close(resolve));
    }
  });
});
