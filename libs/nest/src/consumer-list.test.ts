import type { SQSClient } from '@aws-sdk/client-sqs';
import { SqsWorkerConfigError } from '@requeue/sqs';
import { describe, expect, it } from 'vitest';
import { consumerList } from './consumer-list.js';

const sqs = { send: () => Promise.resolve({}) } as unknown as SQSClient;
const other = { send: () => Promise.resolve({}) } as unknown as SQSClient;
const queue = (name: string) => ({
  queueUrl: `https://sqs.eu-west-1.amazonaws.com/1/${name}`,
  deadLetterQueueUrl: `https://sqs.eu-west-1.amazonaws.com/1/${name}-dlq`,
});

describe('consumerList: both forms of the module options as one list', () => {
  it('reads the one-queue form as a consumer named after its handler', () => {
    const [only, ...rest] = consumerList({ sqs, ...queue('jobs'), maxInFlight: 7, autoStart: false, onError: () => undefined });
    expect(rest).toEqual([]);
    expect(only).toMatchObject({ name: 'default', handlerName: 'default', maxInFlight: 7, sqs });
    expect(only).not.toHaveProperty('autoStart');
    expect(only).not.toHaveProperty('onError');
  });

  it('applies the module-level engine options as defaults each consumer may override, and its own client when it has one', () => {
    const list = consumerList({
      sqs,
      maxInFlight: 20,
      waitTimeSeconds: 5,
      consumers: [
        { handlerName: 'orders', ...queue('orders') },
        { name: 'mail', handlerName: 'emails', ...queue('emails'), maxInFlight: 2, sqs: other },
      ],
    });
    expect(list.map((c) => [c.name, c.handlerName, c.maxInFlight, c.waitTimeSeconds, c.sqs === other])).toEqual([
      ['orders', 'orders', 20, 5, false],
      ['mail', 'emails', 2, 5, true],
    ]);
  });

  it('refuses two consumers with one name, and an empty list, naming the setting', () => {
    const twice = () =>
      consumerList({
        sqs,
        consumers: [
          { handlerName: 'orders', ...queue('a') },
          { handlerName: 'orders', ...queue('b') },
        ],
      });
    expect(twice).toThrow(SqsWorkerConfigError);
    expect(twice).toThrow(/^consumers\[1\]\.name: "orders" is taken by an earlier consumer/);
    expect(() => consumerList({ sqs, consumers: [] })).toThrow(/^consumers: must list at least one consumer/);
  });
});
