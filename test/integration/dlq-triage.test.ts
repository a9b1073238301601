import { describe, expect, it } from 'vitest';
import { deadLetterCorpus, loadDeadLetters } from '../support/dead-letter-corpus.js';
import { runDlqCli } from '../support/dlq-cli.js';
import { emulatorSuite } from '../support/suite.js';

const suite = emulatorSuite();

/** The corpus's five causes in its proportions, a tenth of its size. */
const SMALL_COUNTS = [300, 250, 200, 150, 100];

describe('requeue dlq triage (on the emulator)', () => {
  it('groups 10,000 dead letters of 5 causes exactly, leaves every one visible again, and lets --group pick one cause', async () => {
    const queues = await suite.emulator.createQueues();
    await loadDeadLetters(suite.emulator.sqs, queues.dlqUrl, deadLetterCorpus(queues.queueUrl));

    const dlq = (...args: string[]) => runDlqCli(suite.emulator.endpoint, queues.dlqUrl, args);
    const { stdout } = await dlq('triage', '--json');
    const triage = JSON.parse(stdout) as {
      total: number;
      calls: { receives: number; releases: number };
      groups: Array<{ id: string; count: number; reason: string; errorType: string; fingerprint: string; dependency: string | null; consumer: string | null }>;
    };
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

    // The same causes in another DLQ, a tenth the size: the table lists them under the same
    // ids in the same order, and a group id picks exactly that cause for the other commands.
    // (A tenth, since every command below reads the whole queue again.)
    const small = await suite.emulator.createQueues();
    await loadDeadLetters(suite.emulator.sqs, small.dlqUrl, deadLetterCorpus(queues.queueUrl, SMALL_COUNTS));
    const smallDlq = (...args: string[]) => runDlqCli(suite.emulator.endpoint, small.dlqUrl, args);
    const table = (await smallDlq('triage')).stdout;
    console.info(table);
    const lines = table.trim().split('\n');
    expect(lines.slice(1, 6).map((line) => line.split(/\s+/)[0])).toEqual(triage.groups.map((g) => g.id));
    expect(lines.at(-1)!).toMatch(
      /^1000 dead letter\(s\) in 5 group\(s\); read with \d+ receives and 100 release calls; every message it read is visible again$/,
    );

    const validation = triage.groups[3]!;
    const listed = JSON.parse((await smallDlq('list', '--group', validation.id, '--json')).stdout) as Array<{ errorType: string }>;
    expect(listed).toHaveLength(SMALL_COUNTS[3]!);
    expect(new Set(listed.map((entry) => entry.errorType))).toEqual(new Set(['VALIDATION']));
    const replay = JSON.parse((await smallDlq('replay', '--group', validation.id, '--dry-run', '--json')).stdout) as { replayed: unknown[]; dryRun: boolean };
    expect(replay).toMatchObject({ dryRun: true });
    expect(replay.replayed).toHaveLength(SMALL_COUNTS[3]!);
    expect(await smallDlq('list', '--group', 'VALIDATION')).toMatchObject({ code: 2, stderr: expect.stringMatching(/--group takes a group id/) });
    expect(await suite.emulator.depth(small.dlqUrl)).toMatchObject({ visible: 1_000, inFlight: 0 });
  }, 240_000);
});
