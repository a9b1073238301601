import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { EmfMetrics } from './metrics.js';

async function flushed(record: (metrics: EmfMetrics) => void) {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const metrics = new EmfMetrics({ namespace: 'requeue-test', queueName: 'jobs', stream, maxSamples: 5 });
  record(metrics);
  await metrics.flush();
  return text
    .trim()
    .split('\n')
    .filter(Boolean)
    .map(
      (line) =>
        JSON.parse(line) as Record<string, unknown> & {
          _aws: { CloudWatchMetrics: Array<{ Namespace: string; Dimensions: string[][]; Metrics: Array<{ Name: string }> }> };
        },
    );
}

describe('EmfMetrics', () => {
  it('writes CloudWatch EMF documents with the Queue dimension, and ErrorType / Reason where they apply', async () => {
    const documents = await flushed((m) => {
      m.received(3);
      m.succeeded(2, 15);
      m.retried('TEMPORARY', 4);
      m.retried('TEMPORARY', 6);
      m.deadLettered('non-retryable');
      m.duplicateRisk();
    });
    const byMetric = new Map<string, Record<string, unknown>>();
    for (const document of documents) {
      const directive = document._aws.CloudWatchMetrics[0]!;
      expect(directive.Namespace).toBe('requeue-test');
      expect(directive.Dimensions[0]).toContain('Queue');
      for (const metric of directive.Metrics) byMetric.set(metric.Name, document);
    }
    expect(byMetric.get('MessagesReceived')).toMatchObject({ Queue: 'jobs', MessagesReceived: 3 });
    expect(byMetric.get('MessagesRetried')).toMatchObject({ Queue: 'jobs', ErrorType: 'TEMPORARY', MessagesRetried: 2 });
    expect(byMetric.get('MessagesDeadLettered')).toMatchObject({ Reason: 'non-retryable', MessagesDeadLettered: 1 });
    // Published per queue too, which the stack's error-rate alarm reads.
    expect(byMetric.get('MessagesRetried')!._aws.CloudWatchMetrics[0]!.Dimensions).toEqual([['Queue'], ['Queue', 'ErrorType']]);
    expect(byMetric.get('MessagesDeadLettered')!._aws.CloudWatchMetrics[0]!.Dimensions).toEqual([['Queue'], ['Queue', 'Reason']]);
    expect(byMetric.get('MessagesReceived')!._aws.CloudWatchMetrics[0]!.Dimensions).toEqual([['Queue']]);
    expect(byMetric.get('AttemptsToSuccess')).toMatchObject({ AttemptsToSuccess: 2 });
    expect(byMetric.get('DuplicateRisk')).toMatchObject({ DuplicateRisk: 1 });
    expect(byMetric.get('RetryDelay')).toMatchObject({ RetryDelay: [4, 6] });
  });

  it('keeps at most maxSamples values per distribution, however busy the interval', async () => {
    const documents = await flushed((m) => {
      for (let i = 0; i < 1000; i++) m.failed(i);
    });
    const durations = documents.find((d) => 'HandlerDuration' in d)!.HandlerDuration as number[];
    expect(durations).toHaveLength(5);
  });

  it("publishes the worst-served tenants' dwell and handlers per Tenant, and the worst dwell per queue, in milliseconds", async () => {
    const documents = await flushed((m) =>
      m.tenants({
        top: [
          { tenant: 'acme', maxDwellMs: 900, inFlight: 2 },
          { tenant: '', maxDwellMs: 30, inFlight: 0 },
        ],
        worstDwellMs: 900,
      }),
    );
    const acme = documents.find((d) => d.Tenant === 'acme')!;
    expect(acme).toMatchObject({ Queue: 'jobs', TenantDwell: 900, TenantInFlight: 2 });
    expect(acme._aws.CloudWatchMetrics[0]!.Dimensions).toContainEqual(['Queue', 'Tenant']);
    expect(acme._aws.CloudWatchMetrics[0]!.Metrics).toContainEqual({ Name: 'TenantDwell', Unit: 'Milliseconds' });
    // CloudWatch refuses an empty dimension value.
    expect(documents.find((d) => d.Tenant === '(none)')).toMatchObject({ TenantDwell: 30 });
    const worst = documents.find((d) => 'WorstTenantDwell' in d)!;
    expect(worst).toMatchObject({ Queue: 'jobs', WorstTenantDwell: 900 });
    expect(worst._aws.CloudWatchMetrics[0]!.Dimensions).toEqual([['Queue']]);
  });

  it('writes nothing for an empty interval', async () => {
    expect(await flushed(() => undefined)).toEqual([]);
  });
});
