import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PublishBatchCommand } from '@aws-sdk/client-sns';
import { parseDeadLetterRecord } from '@requeue/retry/engine';
import { describe, expect, it } from 'vitest';
import { eventually, type QueuePair } from '../support/emulator.js';
import { readSimulationLedger as readLedger } from '@requeue/local-aws/simulation-ledger';
import { simulation } from '../support/publish.js';
import { emulatorSuite } from '../support/suite.js';
import { waitUntilReady, type WorkerProcess } from '../support/worker-process.js';

const suite = emulatorSuite({ concurrent: true });
const GROUPS = ['g0', 'g1', 'g2', 'g3', 'g4'];
const PER_GROUP = 40;

/** Per group of 40: 20% fail once or twice (4 each), 5% permanent (2), the rest fine. */
function fifoWorkload() {
  const messages: Array<{ id: string; group: string; body: string; permanent: boolean; failTimes: number }> = [];
  for (const group of GROUPS) {
    for (let i = 0; i < PER_GROUP; i++) {
      const id = `${group}-${String(i).padStart(2, '0')}`;
      const failTimes = i % 10 === 1 ? 1 : i % 10 === 6 ? 2 : 0;
      const permanent = i % 20 === 13;
      const simulate = permanent ? { outcome: 'permanent' } : failTimes ? { outcome: 'transient', failTimes, durationMs: 5 } : { outcome: 'ok', durationMs: 5 };
      messages.push({ id, group, body: simulation(id, simulate).body, permanent, failTimes });
    }
  }
  return messages;
}

type Workload = ReturnType<typeof fifoWorkload>;

/** Publishes to the stack's SNS FIFO topic, ten per call, in order within each group. */
async function publish(queues: QueuePair, messages: Workload): Promise<void> {
  for (let start = 0; start < messages.length; start += 10) {
    const batch = messages.slice(start, start + 10);
    const out = await suite.emulator.sns.send(
      new PublishBatchCommand({
        TopicArn: queues.topicArn,
        PublishBatchRequestEntries: batch.map((m, i) => ({ Id: String(i), Message: m.body, MessageGroupId: m.group })),
      }),
    );
    if (out.Failed?.length) throw new Error(`PublishBatch refused ${JSON.stringify(out.Failed)}`);
  }
}

async function fifoWorker(queues: QueuePair, ledger: string, handler = 'simulation'): Promise<WorkerProcess> {
  const worker = await suite.workerProcess(queues, {
    WORKER_HANDLER: handler,
    WORKER_MAX_IN_FLIGHT: '20',
    SIMULATION_LEDGER: ledger,
    RETRY_POLICY: JSON.stringify({ jitter: 'none', types: { TEMPORARY: { backoff: { type: 'fixed', delayMs: 1000 } } } }),
  });
  await waitUntilReady(worker);
  return worker;
}

/** Each group's successes in ledger order, a message repeated back to back counted once. */
function successesByGroup(ledger: string): Map<string, string[]> {
  const byGroup = new Map<string, string[]>(GROUPS.map((group) => [group, []]));
  for (const line of readLedger(ledger)) {
    const ids = byGroup.get(line.id.split('-')[0]!)!;
    if (ids.at(-1) !== line.id) ids.push(line.id);
  }
  return byGroup;
}

const expectedOrder = (messages: Workload, group: string) => messages.filter((m) => m.group === group && !m.permanent).map((m) => m.id);

async function allSettled(queues: QueuePair, ledger: string, messages: Workload, timeoutMs: number): Promise<void> {
  const succeeding = messages.filter((m) => !m.permanent).length;
  await eventually(
    async () => {
      const depth = await suite.emulator.depth(queues.queueUrl);
      const done = new Set(readLedger(ledger).map((line) => line.id)).size;
      return done === succeeding && depth.visible + depth.inFlight + depth.delayed === 0 ? true : undefined;
    },
    timeoutMs,
    `${succeeding} successes and an empty queue`,
  );
}

describe.concurrent('FIFO end to end on the stack’s FIFO topic and queue (fauxqs)', () => {
  // The batch handler's form must end the same: each group in order, the same dead letters.
  it.for(['simulation', 'simulation-batch'])(
    'WORKER_HANDLER=%s, 5 groups × 40, 20% failing once or twice, 5% permanent: each group succeeds in publish order, the permanent ones reach the FIFO DLQ with their group recorded',
    async (handler) => {
      const queues = await suite.emulator.createQueues({ fifo: true, maxReceiveCount: 30 });
      expect(queues.queueUrl.endsWith('.fifo') && queues.dlqUrl.endsWith('.fifo')).toBe(true);
      const ledger = join(mkdtempSync(join(tmpdir(), 'requeue-fifo-')), 'ledger.jsonl');
      const messages = fifoWorkload();
      await fifoWorker(queues, ledger, handler);
      await publish(queues, messages);
      await allSettled(queues, ledger, messages, 90_000);

      const lines = readLedger(ledger);
      expect(lines).toHaveLength(messages.length - 10);
      for (const group of GROUPS) expect(successesByGroup(ledger).get(group)).toEqual(expectedOrder(messages, group));
      // Retries by visibility count their attempts: a message failing n times succeeds on attempt n + 1.
      for (const message of messages.filter((m) => !m.permanent)) {
        expect(lines.find((line) => line.id === message.id)?.attempt).toBe(message.failTimes + 1);
      }
      // Each dead letter keeps its group in the FIFO DLQ, as SQS's own redrive does: read as
      // SQS shows it, each group's dead letters come in publish order.
      const dead = await suite.emulator.consume(queues.dlqUrl);
      expect(dead.map((m) => (JSON.parse(m.Body!) as { id: string }).id).sort()).toEqual(
        messages
          .filter((m) => m.permanent)
          .map((m) => m.id)
          .sort(),
      );
      for (const group of GROUPS) {
        const letters = dead.filter((letter) => letter.Attributes?.MessageGroupId === group);
        expect(letters.map((letter) => (JSON.parse(letter.Body!) as { id: string }).id)).toEqual(
          messages.filter((m) => m.group === group && m.permanent).map((m) => m.id),
        );
      }
      for (const letter of dead) {
        const id = (JSON.parse(letter.Body!) as { id: string }).id;
        expect(parseDeadLetterRecord(letter.MessageAttributes!['x-dead-letter']!.StringValue!)).toMatchObject({
          reason: 'non-retryable',
          messageGroupId: id.split('-')[0],
        });
      }
    },
    120_000,
  );

  it('SIGKILL during a FIFO run keeps each group in order: a duplicate can only repeat the group’s latest success', async () => {
    const queues = await suite.emulator.createQueues({ fifo: true, visibilityTimeoutSeconds: 2, maxReceiveCount: 30 });
    const ledger = join(mkdtempSync(join(tmpdir(), 'requeue-fifo-kill-')), 'ledger.jsonl');
    const messages = fifoWorkload();
    let worker = await fifoWorker(queues, ledger);
    await publish(queues, messages);
    for (const atSuccesses of [30, 80, 130]) {
      await eventually(() => (readLedger(ledger).length >= atSuccesses ? true : undefined), 60_000, `${atSuccesses} successes`);
      worker.child.kill('SIGKILL');
      await worker.exited;
      worker = await fifoWorker(queues, ledger);
    }
    await allSettled(queues, ledger, messages, 90_000);
    for (const group of GROUPS) expect(successesByGroup(ledger).get(group)).toEqual(expectedOrder(messages, group));
    expect((await suite.emulator.consume(queues.dlqUrl)).length).toBe(10);
  }, 180_000);
});
