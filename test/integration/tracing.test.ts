import { SendMessageCommand, type MessageAttributeValue } from '@aws-sdk/client-sqs';
import { PublishCommand } from '@aws-sdk/client-sns';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { NonRetryableError, RetryableError } from '@requeue/retry';
import type { MessageHandler } from '@requeue/sqs';
import { RequeuePublisher } from '@requeue/sqs/publisher';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { eventually, type QueuePair } from '../support/emulator.js';
import { emulatorSuite } from '../support/suite.js';

const suite = emulatorSuite();
const exporter = new InMemorySpanExporter();
const tracerProvider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
const contextManager = new AsyncLocalStorageContextManager();
const PUBLISHER_TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

beforeAll(() => {
  context.setGlobalContextManager(contextManager.enable());
});
afterAll(() => {
  context.disable();
});
beforeEach(() => exporter.reset());

const traced = (queues: QueuePair, handler: MessageHandler) =>
  suite.engine(queues, handler, { types: { TEMPORARY: { backoff: { type: 'fixed', delayMs: 0 } } } }, { tracing: { tracerProvider } });

const processSpans = (messageId: string) =>
  exporter
    .getFinishedSpans()
    .filter((span) => span.name.startsWith('process ') && span.attributes['requeue.original_message_id'] === messageId)
    .sort((a, b) => Number(a.attributes['requeue.attempt']) - Number(b.attributes['requeue.attempt']));

async function send(queueUrl: string, body: string, attributes?: Record<string, MessageAttributeValue>) {
  return (await suite.emulator.sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body, MessageAttributes: attributes }))).MessageId!;
}

const eventNames = (span: ReadableSpan) => span.events.map((event) => event.name);

describe('tracing across attempts (fauxqs, in-memory span exporter)', () => {
  it('gives a message that fails twice and then succeeds one trace: three process spans, each linked to the one before', async () => {
    const queues = await suite.emulator.createQueues();
    await traced(queues, ({ attempt }) => {
      if (attempt < 3) throw new RetryableError(`upstream 503 on attempt ${attempt}`, { errorType: 'TEMPORARY' });
      return Promise.resolve();
    });
    const id = await send(queues.queueUrl, '{"id":"pay-1"}', { traceparent: { DataType: 'String', StringValue: PUBLISHER_TRACEPARENT } });
    const spans = await eventually(() => (processSpans(id).length === 3 ? processSpans(id) : undefined), 15_000, 'three process spans');

    expect(spans.map((span) => span.spanContext().traceId)).toEqual(Array(3).fill('4bf92f3577b34da6a3ce929d0e0e4736'));
    expect(spans.map((span) => span.attributes['requeue.attempt'])).toEqual([1, 2, 3]);
    const [first, second, third] = spans as [ReadableSpan, ReadableSpan, ReadableSpan];
    expect(first.parentSpanContext?.spanId).toBe('00f067aa0ba902b7');
    expect(first.links.map((link) => link.context.spanId)).toEqual(['00f067aa0ba902b7']);
    expect(second.parentSpanContext?.spanId).toBe(first.spanContext().spanId);
    expect(second.links.map((link) => link.context.spanId)).toEqual([first.spanContext().spanId]);
    expect(third.links.map((link) => link.context.spanId)).toEqual([second.spanContext().spanId]);

    expect(first.attributes).toMatchObject({
      'messaging.system': 'aws_sqs',
      'messaging.operation.type': 'process',
      'messaging.destination.name': queues.queueUrl.split('/').pop(),
      'messaging.message.id': id,
      'error.type': 'TEMPORARY',
      'requeue.outcome': 'retried',
    });
    expect(eventNames(first)).toEqual(['exception', 'requeue.retry']);
    expect(first.events[1]!.attributes).toMatchObject({ 'requeue.next_attempt': 2, 'requeue.delay_seconds': 0, 'requeue.transport': 'copy' });
    expect(third.attributes['requeue.outcome']).toBe('succeeded');
    expect(eventNames(third)).toEqual([]);
    expect(third.status.code).toBe(0);
  });

  it("ends a dead-lettered message's trace with the dead letter and its reason, and the dead letter carries the context", async () => {
    const queues = await suite.emulator.createQueues();
    await traced(queues, ({ attempt }) => {
      throw attempt === 1 ? new RetryableError('timeout', { errorType: 'TEMPORARY' }) : new NonRetryableError('card declined');
    });
    const id = await send(queues.queueUrl, '{"id":"pay-2"}');
    const spans = await eventually(() => (processSpans(id).length === 2 ? processSpans(id) : undefined), 15_000, 'two process spans');
    const last = spans[1]!;
    expect(last.spanContext().traceId).toBe(spans[0]!.spanContext().traceId);
    expect(last.events.at(-1)).toMatchObject({
      name: 'requeue.dead-letter',
      attributes: { 'requeue.reason': 'non-retryable', 'requeue.error': 'card declined' },
    });
    expect(last.attributes['requeue.outcome']).toBe('dead-lettered');
    expect(last.status).toMatchObject({ code: 2, message: 'dead-lettered: non-retryable' });

    const [deadLetter] = await eventually(async () => {
      const letters = await suite.emulator.drain(queues.dlqUrl);
      return letters.length > 0 ? letters : undefined;
    });
    expect(deadLetter!.MessageAttributes?.traceparent?.StringValue).toBe(`00-${last.spanContext().traceId}-${last.spanContext().spanId}-01`);
  });

  it('continues the trace from a traceparent inside an SNS envelope', async () => {
    const queues = await suite.emulator.createQueues({ rawMessageDelivery: false });
    await traced(queues, () => Promise.resolve());
    await suite.emulator.sns.send(
      new PublishCommand({
        TopicArn: queues.topicArn,
        Message: '{"id":"env"}',
        MessageAttributes: { traceparent: { DataType: 'String', StringValue: PUBLISHER_TRACEPARENT } },
      }),
    );
    const span = await eventually(() => exporter.getFinishedSpans().find((s) => s.name.startsWith('process ')), 15_000, 'a process span');
    expect(span.spanContext().traceId).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
    expect(span.parentSpanContext?.spanId).toBe('00f067aa0ba902b7');
  });

  it("runs the handler inside the process span, so the handler's own spans are its children", async () => {
    const queues = await suite.emulator.createQueues();
    await traced(queues, async () => {
      const call = tracerProvider.getTracer('handler').startSpan('POST /charge');
      await new Promise((resolve) => setTimeout(resolve, 5));
      call.end();
    });
    await send(queues.queueUrl, '{"id":"child"}');
    const child = await eventually(() => exporter.getFinishedSpans().find((s) => s.name === 'POST /charge'), 15_000, 'the handler span');
    const process = await eventually(() => exporter.getFinishedSpans().find((s) => s.name.startsWith('process ')), 15_000, 'the process span');
    expect(child.parentSpanContext?.spanId).toBe(process.spanContext().spanId);
    expect(child.spanContext().traceId).toBe(process.spanContext().traceId);
  });

  it.each(['queue', 'topic'] as const)("links the publisher's send span to the first attempt (sent to the %s)", async (kind) => {
    const queues = await suite.emulator.createQueues();
    await traced(queues, () => Promise.resolve());
    const publisher = new RequeuePublisher({ sqs: suite.emulator.sqs, sns: suite.emulator.sns, tracing: { tracerProvider } });
    const request = tracerProvider.getTracer('app').startSpan('POST /orders');
    await context.with(trace.setSpan(context.active(), request), () =>
      kind === 'queue'
        ? publisher.send(queues.queueUrl, { body: { id: 'o-1' }, attributes: { tenant: 'acme' } })
        : publisher.publish(queues.topicArn, { body: { id: 'o-1' } }),
    );
    request.end();
    const process = await eventually(() => exporter.getFinishedSpans().find((s) => s.name.startsWith('process ')), 15_000, 'a process span');
    const send = exporter.getFinishedSpans().find((s) => s.name.startsWith('send '))!;
    expect(send).toMatchObject({ kind: 3, attributes: { 'messaging.operation.type': 'send', 'messaging.system': kind === 'queue' ? 'aws_sqs' : 'aws.sns' } });
    expect(send.parentSpanContext?.spanId).toBe(request.spanContext().spanId);
    expect(process.parentSpanContext?.spanId).toBe(send.spanContext().spanId);
    expect(process.spanContext().traceId).toBe(request.spanContext().traceId);
  });
});
