import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../support/emulator.js';
import { simulation } from '../support/publish.js';
import { emulatorSuite } from '../support/suite.js';
import { startWorkerProcess, waitUntilReady } from '../support/worker-process.js';

const suite = emulatorSuite();

interface Export {
  path: string;
  contentType: string;
  body: Buffer;
}

/** An OTLP/HTTP receiver that keeps every request it is sent and answers 200. */
async function startCollector(): Promise<{ url: string; exports: Export[]; server: Server }> {
  const exports: Export[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      exports.push({ path: request.url ?? '', contentType: request.headers['content-type'] ?? '', body: Buffer.concat(chunks) });
      response
        .writeHead(200, { 'content-type': request.headers['content-type'] ?? 'application/json' })
        .end(request.headers['content-type']?.includes('json') ? '{}' : '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, exports, server };
}

const collectors: Server[] = [];
afterEach(() => {
  for (const server of collectors.splice(0)) server.close();
});

type JsonSpan = { name: string; traceId: string; attributes: Array<{ key: string; value: { stringValue?: string; intValue?: string } }> };
type JsonExport = { resourceSpans: Array<{ resource: { attributes: JsonSpan['attributes'] }; scopeSpans: Array<{ spans: JsonSpan[] }> }> };

describe('the worker app exports spans over OTLP when the OTEL_* variables ask', () => {
  it.each(['http/json', 'http/protobuf'])('sends the spans still buffered at SIGTERM (%s)', async (protocol) => {
    const queues = await suite.emulator.createQueues();
    const collector = await startCollector();
    collectors.push(collector.server);
    const worker = await suite.workerProcess(queues, {
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: protocol,
      OTEL_SERVICE_NAME: 'payments-worker',
      // Nothing is exported on the schedule within the test: only the flush at shutdown can send it.
      OTEL_BSP_SCHEDULE_DELAY: '600000',
    });
    await waitUntilReady(worker);
    await suite.emulator.sqs.send(
      new SendMessageCommand({ QueueUrl: queues.queueUrl, MessageBody: JSON.stringify(simulation('traced-1', { outcome: 'success' })) }),
    );
    await eventually(async () => {
      const depth = await suite.emulator.depth(queues.queueUrl);
      return depth.visible + depth.inFlight === 0 ? true : undefined;
    });
    expect(collector.exports.filter((e) => e.path === '/v1/traces')).toEqual([]);

    worker.child.kill('SIGTERM');
    expect(await worker.exited).toMatchObject({ code: 0 });
    const traces = collector.exports.filter((e) => e.path === '/v1/traces');
    expect(traces).toHaveLength(1);
    const queueName = queues.queueUrl.split('/').pop()!;
    if (protocol === 'http/json') {
      expect(traces[0]!.contentType).toContain('application/json');
      const body = JSON.parse(traces[0]!.body.toString()) as JsonExport;
      const [resourceSpans] = body.resourceSpans;
      expect(resourceSpans!.resource.attributes).toContainEqual({ key: 'service.name', value: { stringValue: 'payments-worker' } });
      const spans = resourceSpans!.scopeSpans.flatMap((scope) => scope.spans);
      expect(spans.map((span) => span.name)).toEqual([`process ${queueName}`]);
      expect(spans[0]!.attributes).toContainEqual({ key: 'messaging.system', value: { stringValue: 'aws_sqs' } });
    } else {
      expect(traces[0]!.contentType).toContain('application/x-protobuf');
      // Protobuf keeps strings as UTF-8 bytes: the span's name and the service are in there.
      expect(traces[0]!.body.includes(`process ${queueName}`)).toBe(true);
      expect(traces[0]!.body.includes('payments-worker')).toBe(true);
    }
    expect(collector.exports.filter((e) => e.path !== '/v1/traces')).toEqual([]);
  });

  it('refuses an OTLP protocol it cannot speak, naming the variable', async () => {
    const worker = await startWorkerProcess({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/xml', WORKER_HANDLER: 'simulation' });
    suite.track(worker);
    expect(await worker.exited).toMatchObject({ code: 1 });
    expect(worker.output()).toContain('OTEL_EXPORTER_OTLP_PROTOCOL: must be http/protobuf, http/json or grpc, got "http/xml"');
  });
});
