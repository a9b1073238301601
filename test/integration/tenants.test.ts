import { setTimeout as sleep } from 'node:timers/promises';
import type { SqsWorkerOptions } from '@requeue/sqs';
import { SqsWorkerConfigError } from '@requeue/sqs';
import { describe, expect, it } from 'vitest';
import { eventually, type QueuePair } from '../support/emulator.js';
import { sendAll } from '../support/publish.js';
import { emulatorSuite } from '../support/suite.js';

const suite = emulatorSuite();

/** A worker of 2 handlers of `handlerMs` on `queues`; the ids of the jobs it starts, in order. */
async function recordStarts(queues: QueuePair, options: Partial<SqsWorkerOptions>, handlerMs = 20): Promise<string[]> {
  const started: string[] = [];
  await suite.engine(
    queues,
    async ({ body }) => {
      started.push((body as { id: string }).id);
      await sleep(handlerMs);
    },
    {},
    { maxInFlight: 2, ...options },
  );
  return started;
}

/**
 * A burst of 20 jobs from tenant a, then 2 from tenant b, all on the queue before the
 * worker starts: 2 handlers, a prefetch of 20, so the worker holds every message at once.
 * Resolves with the order the handlers started them in. The handlers take 60 ms: the
 * receives that bring the rest of the queue land before the first few jobs end, even on
 * a loaded machine.
 */
async function startOrder(extra: Partial<SqsWorkerOptions>, burstTenant: (i: number) => string = () => 'a'): Promise<string[]> {
  const queues = await suite.emulator.createQueues();
  const burst = Array.from({ length: 20 }, (_, i) => ({ body: JSON.stringify({ tenant: burstTenant(i), id: `a${i}` }) }));
  await sendAll(suite.emulator.sqs, queues.queueUrl, [...burst, { body: '{"tenant":"b","id":"b0"}' }, { body: '{"tenant":"b","id":"b1"}' }]);
  const started = await recordStarts(queues, { prefetch: 20, ...extra }, 60);
  await eventually(() => (started.length === 22 ? true : undefined), 20_000, 'every job to start');
  return started;
}

describe('tenants take turns for the handlers (body.tenant key, on the emulator)', () => {
  it("starts a quiet tenant's jobs among the first, where without tenants they wait behind the whole burst", async () => {
    const fair = await startOrder({ tenants: { key: 'body.tenant' } });
    const plain = await startOrder({});
    console.info(
      `start positions of b's jobs: with tenants ${['b0', 'b1'].map((id) => fair.indexOf(id))}, without ${['b0', 'b1'].map((id) => plain.indexOf(id))}`,
    );
    expect(Math.max(fair.indexOf('b0'), fair.indexOf('b1'))).toBeLessThan(8);
    expect(Math.min(plain.indexOf('b0'), plain.indexOf('b1'))).toBeGreaterThanOrEqual(10);
    // Within a tenant, arrival order holds.
    const aOrder = fair.filter((id) => id.startsWith('a'));
    expect(aOrder.indexOf('a0')).toBe(0);
  }, 60_000);

  it('keeps the quiet tenant early against a burst that invents a tenant per message, once the real tenants are listed', async () => {
    const perMessage = (i: number) => `burst-${i}`;
    const listed = await startOrder({ tenants: { key: 'body.tenant', values: ['a', 'b'] } }, perMessage);
    const unlisted = await startOrder({ tenants: { key: 'body.tenant' } }, perMessage);
    console.info(
      `start positions of b's jobs against a tenant per burst message: listed ${['b0', 'b1'].map((id) => listed.indexOf(id))}, not ${['b0', 'b1'].map((id) => unlisted.indexOf(id))}`,
    );
    // The invented values share one turn: b takes every other start.
    expect(Math.max(listed.indexOf('b0'), listed.indexOf('b1'))).toBeLessThan(8);
    // Without the list every invented value is a tenant of its own, ahead of b: what docs/worker.md warns of.
    expect(Math.max(unlisted.indexOf('b0'), unlisted.indexOf('b1'))).toBeGreaterThanOrEqual(10);
  }, 60_000);

  it("reads past one tenant's burst in the queue once a second tenant was seen, where the prefetch alone leaves the other behind it", async () => {
    /** b's first job starts the run; then 100 of a's and 2 more of b's arrive while 2 handlers of 20 ms work. */
    const startOrderAfterBurst = async (extra: Partial<SqsWorkerOptions>) => {
      const queues = await suite.emulator.createQueues();
      const started = await recordStarts(queues, { prefetch: 2, ...extra });
      await sendAll(suite.emulator.sqs, queues.queueUrl, [{ body: '{"tenant":"b","id":"b0"}' }]);
      await eventually(() => (started.includes('b0') ? true : undefined), 10_000, "b's first job to start");
      const burst = Array.from({ length: 100 }, (_, i) => ({ body: JSON.stringify({ tenant: 'a', id: `a${i}` }) }));
      await sendAll(suite.emulator.sqs, queues.queueUrl, [...burst, { body: '{"tenant":"b","id":"b1"}' }, { body: '{"tenant":"b","id":"b2"}' }]);
      await eventually(() => (started.length === 103 ? true : undefined), 30_000, 'every job to start');
      return started;
    };
    const fair = await startOrderAfterBurst({ tenants: { key: 'body.tenant', prefetch: 200 } });
    const plain = await startOrderAfterBurst({});
    console.info(
      `start positions of b's later jobs: with tenants ${['b1', 'b2'].map((id) => fair.indexOf(id))}, without ${['b1', 'b2'].map((id) => plain.indexOf(id))}`,
    );
    // Sent in batches of 10 behind a's 100: with the read-ahead, b's jobs start as soon as the worker has read them.
    expect(Math.max(fair.indexOf('b1'), fair.indexOf('b2'))).toBeLessThan(60);
    expect(Math.min(plain.indexOf('b1'), plain.indexOf('b2'))).toBeGreaterThan(90);
  }, 90_000);

  it('refuses a key or cap it cannot use, naming the option', async () => {
    const queues = await suite.emulator.createQueues();
    const refusal = (tenants: unknown) =>
      suite
        .engine(queues, async () => undefined, {}, { tenants: tenants as SqsWorkerOptions['tenants'] })
        .then(
          () => undefined,
          (error: unknown) => error,
        );
    expect(await refusal({ key: 'customer' })).toMatchObject({
      option: 'tenants.key',
      message: expect.stringMatching(/group, attribute\.<name> or body\.<path>/),
    });
    expect(await refusal({ key: 'body.' })).toBeInstanceOf(SqsWorkerConfigError);
    expect(await refusal({ key: 'group', maxInFlight: '150%' })).toMatchObject({ option: 'tenants.maxInFlight' });
    expect(await refusal({ key: 'group', maxInFlight: 0 })).toMatchObject({ option: 'tenants.maxInFlight' });
    expect(await refusal({ key: 'group', prefetch: -1 })).toMatchObject({ option: 'tenants.prefetch' });
    expect(await refusal({ key: 'group', values: [] })).toMatchObject({
      option: 'tenants.values',
      message: expect.stringMatching(/must list 1 to 10000 tenant values/),
    });
    expect(await refusal({ key: 'group', values: ['a', ''] })).toMatchObject({ option: 'tenants.values' });
  });
});
