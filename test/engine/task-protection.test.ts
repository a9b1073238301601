import { describe, expect, it } from 'vitest';
import { SqsWorker } from '@requeue/sqs';
import { startFakeAgent } from '../support/ecs-agent-fake.js';
import { MemorySqs } from '@requeue/local-aws/memory-sqs';
import { eventually } from '../support/emulator.js';

const QUEUE_URL = 'http://sqs.local/000000000000/orders';
const DLQ_URL = 'http://sqs.local/000000000000/orders-dlq';

/** A worker on the SQS fake whose task asks the fake ECS agent for protection. */
async function run(behaviours: Parameters<typeof startFakeAgent>[0], messages: number, handlerMs: number) {
  const agent = await startFakeAgent(behaviours);
  const sqs = new MemorySqs({ queueUrl: QUEUE_URL });
  const handled: string[] = [];
  /** Whether ECS would have spared the task when each handler started. */
  const protectedAtStart: boolean[] = [];
  const worker = new SqsWorker({
    sqs: sqs.client,
    queueUrl: QUEUE_URL,
    deadLetterQueueUrl: DLQ_URL,
    maxInFlight: 5,
    waitTimeSeconds: 1,
    taskProtection: { agentUri: agent.uri, idleMs: 300 },
    handler: async (message) => {
      protectedAtStart.push(agent.isProtected());
      await new Promise((resolve) => setTimeout(resolve, handlerMs));
      handled.push(message.messageId);
    },
  });
  for (let i = 0; i < messages; i++) sqs.add(JSON.stringify({ i }));
  const startedAt = Date.now();
  await worker.start();
  await sqs.whenEmpty();
  const tookMs = Date.now() - startedAt;
  return { agent, sqs, worker, handled, protectedAtStart, tookMs };
}

describe('ECS task scale-in protection in the engine', () => {
  it('protects once, before the first handler starts, and clears once idle, whatever the number of messages', async () => {
    const { agent, sqs, worker, handled, protectedAtStart } = await run([], 60, 5);
    try {
      expect(handled).toHaveLength(60);
      expect(protectedAtStart).toEqual(Array(60).fill(true));
      await eventually(async () => (agent.requests.length === 2 ? true : undefined), 5000);
      expect(agent.requests.map((r) => r.body)).toEqual([{ ProtectionEnabled: true, ExpiresInMinutes: 10 }, { ProtectionEnabled: false }]);
      await eventually(async () => (worker.health().taskProtection?.cleared === 1 ? true : undefined), 2000);
      expect(worker.health().taskProtection).toEqual({ enabled: 1, cleared: 1, renewed: 0, failed: 0 });
    } finally {
      await worker.stop();
      sqs.close();
      await agent.close();
    }
    // Already cleared: stopping asks for nothing more.
    expect(agent.requests).toHaveLength(2);
  });

  it('runs every message on time while the agent hangs or refuses the task, and stops within its wait for the agent', async () => {
    for (const behaviour of ['hang', 'task-not-valid'] as const) {
      const { agent, sqs, worker, handled, tookMs } = await run(Array(10).fill(behaviour), 20, 5);
      try {
        expect(handled).toHaveLength(20);
        if (behaviour === 'task-not-valid') expect(worker.health().taskProtection?.failed).toBeGreaterThan(0);
        // 20 messages of 5 ms, 5 at once: well under the agent's 1 s deadline and its retries.
        expect(tookMs).toBeLessThan(1000);
      } finally {
        const stopping = Date.now();
        await worker.stop();
        // The handlers are done: the stop waits for the 1 s long poll, and for the agent 2 s at most.
        expect(Date.now() - stopping).toBeLessThan(4500);
        sqs.close();
        await agent.close();
      }
    }
  });
});
