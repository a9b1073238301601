import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { NestFactory } from '@nestjs/core';
import { SqsHealthIndicator } from '@requeue/nest';
import { describe, expect, it } from 'vitest';
import { emulatorSuite } from '../support/suite.js';
import { eventually } from '../support/emulator.js';
import { moduleFor, RequestScopedHandler, seen, SingletonHandler } from '../support/nest-fixtures.js';

const suite = emulatorSuite();

async function send(queueUrl: string, body: string) {
  await suite.emulator.sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body }));
}

describe('SqsWorkerModule', () => {
  it('runs a request-scoped @SqsHandler with a fresh instance per message, and survives a throwing error listener', async () => {
    const queues = await suite.emulator.createQueues();
    const listenerCalls: string[] = [];
    const app = await NestFactory.createApplicationContext(moduleFor(suite.emulator.sqs, queues, 'scoped', listenerCalls), { logger: false });
    try {
      const before = RequestScopedHandler.instances;
      await send(queues.queueUrl, 'steady');
      await send(queues.queueUrl, 'flaky');
      await eventually(() => (seen.includes('steady#1') && seen.includes('flaky#2') ? true : undefined), 10_000, 'both messages');
      expect(RequestScopedHandler.instances - before).toBe(3);
      expect(listenerCalls).toHaveLength(1);
      const health = app.get(SqsHealthIndicator).isReady();
      expect(health['sqs-worker'].status).toBe('up');
    } finally {
      await app.close();
    }
  });

  it('looks the handler method up per message, so a wrapper installed after boot is used', async () => {
    const queues = await suite.emulator.createQueues();
    const app = await NestFactory.createApplicationContext(moduleFor(suite.emulator.sqs, queues, 'default', []), { logger: false });
    try {
      await send(queues.queueUrl, 'one');
      await eventually(() => (seen.includes('original:one') ? true : undefined), 10_000, 'the first message');
      const instance = app.get(SingletonHandler);
      const original = instance.handle.bind(instance);
      instance.handle = async (message) => {
        seen.push(`traced:${message.rawBody}`);
        await original(message);
      };
      await send(queues.queueUrl, 'two');
      await eventually(() => (seen.includes('traced:two') && seen.includes('original:two') ? true : undefined), 10_000, 'the wrapped call');
    } finally {
      await app.close();
    }
  });
});
