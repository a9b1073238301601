import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { encodeDeadLetterRecord, type DeadLetterReason } from '@requeue/retry/engine';
import { describe, expect, it } from 'vitest';
import { sendAll, type Outgoing } from '../support/publish.js';
import { emulatorSuite } from '../support/suite.js';

const CLI = fileURLToPath(new URL('../../apps/cli/dist/main.js', import.meta.url));
const run = promisify(execFile);
const suite = emulatorSuite();

/** Five causes, each with ids, numbers and URLs that vary from one dead letter to the next. */
const CAUSES: Array<{ count: number; reason?: DeadLetterReason; errorType?: string; error?: (n: number) => string }> = [
  { count: 3_000, reason: 'max-attempts', errorType: 'HTTP_5XX', error: (n) => `POST https://hooks.example.com/orders/${n}: 503 Service Unavailable after ${n % 7 + 1} ms` },
  { count: 2_500, reason: 'non-retryable', errorType: 'HTTP_4XX', error: (n) => `POST https://api.pay.example/v1/charges/ch_${n}: 400 (request ${n.toString(16).padStart(6, '0')}9f3a2b)` },
  { count: 2_000, reason: 'max-attempts', errorType: 'TIMEOUT', error: (n) => `handler timed out after ${30_000 + n} ms` },
  { count: 1_500, reason: 'non-retryable', errorType: 'VALIDATION', error: (n) => `body failed validation: items.${n % 5}.amount: Expected number, received string` },
  // Moved by SQS's own redrive: no x-dead-letter record.
  { count: 1_000 },
];

function deadLetters(sourceQueue: string): Outgoing[] {
  const now = Date.now();
  return CAUSES.flatMap((cause, c) =>
    Array.from({ length: cause.count }, (_, n) => {
      const body = JSON.stringify({ cause: c, n });
      if (!cause.reason) return { body };
      const record = { reason: cause.reason, errorType: cause.errorType!, error: cause.error!(n), attempts: 3, firstReceivedAt: now - 60_000, deadLetteredAt: now - n, sourceQueue, originalMessageId: `m-${c}-${n}` };
      return { body, attributes: { 'x-dead-letter': { DataType: 'String', StringValue: encodeDeadLetterRecord(record) } } };
    }),
  );
}

describe('requeue dlq triage (on the emulator)', () => {
  it('groups 10,000 dead letters of 5 causes exactly, leaves every one visible again, and lets --group pick one cause', async () => {
    const queues = await suite.emulator.createQueues();
    const letters = deadLetters(queues.queueUrl);
    // Ten batches of ten at a time: the load takes seconds, not a minute.
    const chunks = Array.from({ length: Math.ceil(letters.length / 100) }, (_, i) => letters.slice(i * 100, i * 100 + 100));
    await Promise.all(chunks.map((chunk) => sendAll(suite.emulator.sqs, queues.dlqUrl, chunk)));

    const dlq = (...args: string[]) =>
      run(process.execPath, [CLI, 'dlq', ...args, '--dlq', queues.dlqUrl], {
        env: { PATH: process.env.PATH, AWS_ENDPOINT_URL: suite.emulator.endpoint, AWS_REGION: 'us-east-1' },
        maxBuffer: 64 * 1024 * 1024,
      });
    const { stdout } = await dlq('triage', '--json');
    const triage = JSON.parse(stdout) as { total: number; calls: { receives: number; releases: number }; groups: Array<{ id: string; count: number; reason: string; errorType: string; fingerprint: string; dependency: string | null; consumer: string | null }> };
    expect(triage.total).toBe(10_000);
    expect(triage.groups.map((g) => [g.count, g.reason, g.errorType, g.dependency])).toEqual([
      [3_000, 'max-attempts', 'HTTP_5XX', 'hooks.example.com'],
      [2_500, 'non-retryable', 'HTTP_4XX', 'api.pay.example'],
      [2_000, 'max-attempts', 'TIMEOUT', null],
      [1_500, 'non-retryable', 'VALIDATION', null],
      [1_000, 'redrive-backstop', 'UNKNOWN', null],
    ]);
    expect(triage.groups[0]).toMatchObject({ fingerprint: 'POST <url>: <n> Service Unavailable after <n> ms', consumer: queues.queueUrl });
    expect(triage.groups[1]!.fingerprint).toBe('POST <url>: <n> (request <id>)');
    expect(new Set(triage.groups.map((g) => g.id)).size).toBe(5);
    // About one receive and one release per ten dead letters.
    expect(triage.calls.receives).toBeLessThanOrEqual(1_000 + 10);
    expect(triage.calls.releases).toBe(1_000);
    console.info(`triage of 10,000: ${triage.calls.receives} receives, ${triage.calls.releases} releases`);
    expect(await suite.emulator.depth(queues.dlqUrl)).toMatchObject({ visible: 10_000, inFlight: 0 });

    // The table, read again: the same groups, in the same order, under the same ids.
    const table = (await dlq('triage')).stdout;
    console.info(table);
    const lines = table.trim().split('\n');
    expect(lines.slice(1, 6).map((line) => line.split(/\s+/)[0])).toEqual(triage.groups.map((g) => g.id));
    expect(lines.at(-1)!).toMatch(/^10000 dead letter\(s\) in 5 group\(s\); read with \d+ receives and 1000 release calls; every message is visible again$/);

    // A group id picks exactly that cause's dead letters for the other commands.
    const validation = triage.groups[3]!;
    const listed = JSON.parse((await dlq('list', '--group', validation.id, '--json')).stdout) as Array<{ errorType: string }>;
    expect(listed).toHaveLength(1_500);
    expect(new Set(listed.map((entry) => entry.errorType))).toEqual(new Set(['VALIDATION']));
    const replay = JSON.parse((await dlq('replay', '--group', validation.id, '--dry-run', '--json')).stdout) as { replayed: unknown[]; dryRun: boolean };
    expect(replay).toMatchObject({ dryRun: true });
    expect(replay.replayed).toHaveLength(1_500);
    await expect(dlq('list', '--group', 'VALIDATION')).rejects.toMatchObject({ code: 2, stderr: expect.stringMatching(/--group takes a group id/) });
    expect(await suite.emulator.depth(queues.dlqUrl)).toMatchObject({ visible: 10_000, inFlight: 0 });
  }, 240_000);
});
