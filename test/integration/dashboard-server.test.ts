import { request as httpRequest } from 'node:http';
import { PublishCommand } from '@aws-sdk/client-sns';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { deadLetterFrom } from '../support/dead-letter-sources.js';
import { eventually } from '../support/emulator.js';
import { emulatorSuite } from '../support/suite.js';
import { simulation } from '../support/publish.js';
import { startWorkerWithDashboard } from '../support/dashboard-worker.js';
import { freePort, startWorkerProcess, waitUntilReady } from '../support/worker-process.js';

const suite = emulatorSuite({ concurrent: true });

async function workerWithDashboard(env: Record<string, string> = {}) {
  const queues = await suite.emulator.createQueues();
  return { queues, ...(await startWorkerWithDashboard(suite.emulator, queues, (worker) => suite.track(worker), env)) };
}

describe.concurrent('the local dashboard API (worker app)', () => {
  it('binds 127.0.0.1, reports depths and activity, lists the DLQ, and replays or discards only with the token', async () => {
    const { queues, url, base, token } = await workerWithDashboard();
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/#token=[0-9a-f]{32}$/);
    await suite.emulator.sns.send(new PublishCommand({ TopicArn: queues.topicArn, Message: simulation('ok-1').body }));
    await suite.emulator.sns.send(new PublishCommand({ TopicArn: queues.topicArn, Message: simulation('bad-1', { outcome: 'permanent' }).body }));
    const state = await eventually(
      async () => {
        const body = (await (await fetch(`${base}/api/state`, { headers: { 'x-requeue-token': token } })).json()) as {
          dlq: { visible: number };
          activity: { totals: { succeeded: number; deadLettered: number } };
        };
        // The DLQ shows the dead letter as soon as SQS has it, a moment before the worker
        // hears back and counts it: wait for both, then check that each counted once.
        const { succeeded, deadLettered } = body.activity.totals;
        return succeeded >= 1 && deadLettered >= 1 && body.dlq.visible >= 1 ? body : undefined;
      },
      15_000,
      'one success and one dead letter',
    );
    expect(state.activity.totals).toMatchObject({ succeeded: 1, deadLettered: 1 });
    expect(state.dlq.visible).toBe(1);

    const rows = (await (await fetch(`${base}/api/dead-letters`, { headers: { 'x-requeue-token': token } })).json()) as Array<{
      messageId: string;
      reason: string;
      body: string;
    }>;
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ reason: 'non-retryable' });
    // Listing released it again.
    expect((await suite.emulator.depth(queues.dlqUrl)).visible).toBe(1);

    const withoutToken = await fetch(`${base}/api/dead-letters/${rows[0]!.messageId}/discard`, { method: 'POST' });
    expect(withoutToken.status).toBe(403);
    const wrongToken = await fetch(`${base}/api/dead-letters/${rows[0]!.messageId}/discard`, {
      method: 'POST',
      headers: { 'x-requeue-token': 'f'.repeat(32) },
    });
    expect(wrongToken.status).toBe(403);
    const discarded = await fetch(`${base}/api/dead-letters/${rows[0]!.messageId}/discard`, { method: 'POST', headers: { 'x-requeue-token': token } });
    expect(discarded.status).toBe(200);
    expect(await suite.emulator.depth(queues.dlqUrl)).toMatchObject({ visible: 0, inFlight: 0 });
    const missing = await fetch(`${base}/api/dead-letters/${rows[0]!.messageId}/replay`, { method: 'POST', headers: { 'x-requeue-token': token } });
    expect(missing.status).toBe(404);

    const page = await (await fetch(`${base}/`)).text();
    expect(page).toContain('/assets/uplot.js');
    expect((await fetch(`${base}/assets/uplot.js`)).status).toBe(200);
  }, 60_000);

  it('lists the retries the worker scheduled (what SQS cannot show), behind the token', async () => {
    const { queues, base, token } = await workerWithDashboard({
      RETRY_POLICY: JSON.stringify({ jitter: 'none', types: { TEMPORARY: { backoff: { type: 'fixed', delayMs: 30_000 } } } }),
    });
    const published = await suite.emulator.sns.send(
      new PublishCommand({ TopicArn: queues.topicArn, Message: simulation('slow-1', { outcome: 'transient', failTimes: 1 }).body }),
    );
    type RetryList = {
      at: number;
      retries: Array<{ originalMessageId: string; attempt: number; errorType: string; lastError: string; dueAt: number; kind: string; transport: string }>;
    };
    const list = await eventually(
      async () => {
        const body = (await (await fetch(`${base}/api/retries`, { headers: { 'x-requeue-token': token } })).json()) as RetryList;
        return body.retries.length > 0 ? body : undefined;
      },
      15_000,
      'the scheduled retry',
    );
    expect(list.retries).toHaveLength(1);
    expect(list.retries[0]).toMatchObject({ attempt: 2, errorType: 'TEMPORARY', lastError: 'simulated transient failure', kind: 'retry', transport: 'copy' });
    expect(list.retries[0]!.originalMessageId).toBeTruthy();
    expect(published.MessageId).toBeTruthy();
    expect(list.retries[0]!.dueAt - list.at).toBeGreaterThan(20_000);
    expect((await fetch(`${base}/api/retries`)).status).toBe(403);
  }, 60_000);

  it('replays only to the queue the worker consumes, whatever source queue the dead letter names', async () => {
    const { queues, base, token } = await workerWithDashboard({ WORKER_HANDLER: 'simulation' });
    const elsewhere = await suite.emulator.createQueues();
    const sent = await suite.emulator.sqs.send(
      new SendMessageCommand({
        QueueUrl: queues.dlqUrl,
        MessageBody: simulation('forged-1').body,
        MessageAttributes: { 'x-dead-letter': deadLetterFrom(elsewhere.queueUrl, 'o-3') },
      }),
    );
    const replayed = await fetch(`${base}/api/dead-letters/${sent.MessageId}/replay`, { method: 'POST', headers: { 'x-requeue-token': token } });
    expect(replayed.status).toBe(200);
    expect(((await replayed.json()) as { replayed: Array<{ to: string }> }).replayed).toEqual([{ messageId: sent.MessageId, to: queues.queueUrl }]);
    expect(await suite.emulator.depth(elsewhere.queueUrl)).toEqual({ visible: 0, inFlight: 0, delayed: 0 });
  }, 60_000);

  it('answers no read without the token, and no request for another host name (DNS rebinding)', async () => {
    const { base, token } = await workerWithDashboard();
    for (const path of ['/api/state', '/api/dead-letters', '/api/dead-letter-groups', '/api/retries']) {
      expect((await fetch(`${base}${path}`)).status).toBe(403);
      expect((await fetch(`${base}${path}`, { headers: { 'x-requeue-token': token } })).status).toBe(200);
    }
    const rebound = await new Promise<number>((resolve, reject) => {
      const call = httpRequest(`${base}/api/state`, { headers: { host: 'rebind.evil.example', 'x-requeue-token': token } }, (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      });
      call.once('error', reject);
      call.end();
    });
    expect(rebound).toBe(403);
  }, 60_000);

  it('reading the DLQ over and over does not keep receiving its messages', async () => {
    const { queues, base, token } = await workerWithDashboard();
    await suite.emulator.sns.send(new PublishCommand({ TopicArn: queues.topicArn, Message: simulation('bad-2', { outcome: 'permanent' }).body }));
    await eventually(async () => ((await suite.emulator.depth(queues.dlqUrl)).visible === 1 ? true : undefined), 15_000, 'the dead letter');
    for (let i = 0; i < 5; i++) {
      const rows = (await (await fetch(`${base}/api/dead-letters`, { headers: { 'x-requeue-token': token } })).json()) as unknown[];
      expect(rows).toHaveLength(1);
    }
    const [letter] = await suite.emulator.drain(queues.dlqUrl);
    // The worker's send, the one scan, and this drain: not one receive per read.
    expect(Number(letter!.Attributes!.ApproximateReceiveCount)).toBeLessThanOrEqual(2);
  }, 60_000);

  it('is off under NODE_ENV=production unless WORKER_DASHBOARD=on', async () => {
    const queues = await suite.emulator.createQueues();
    const port = await freePort();
    const off = await startWorkerProcess({
      WORKER_QUEUE_URL: queues.queueUrl,
      WORKER_DLQ_URL: queues.dlqUrl,
      AWS_ENDPOINT_URL: suite.emulator.endpoint,
      NODE_ENV: 'production',
      WORKER_DASHBOARD: '',
      WORKER_DASHBOARD_PORT: String(port),
    });
    suite.track(off);
    await waitUntilReady(off);
    expect(off.output()).not.toContain('dashboard on');
    await expect(fetch(`http://127.0.0.1:${port}/api/state`)).rejects.toThrow();
    const on = await workerWithDashboard({ NODE_ENV: 'production', WORKER_DASHBOARD: 'on' });
    expect((await fetch(`${on.base}/api/state`, { headers: { 'x-requeue-token': on.token } })).status).toBe(200);
  }, 60_000);

  it('keeps working without a dashboard when its port is taken', async () => {
    const first = await workerWithDashboard();
    const port = new URL(first.base).port;
    const queues = await suite.emulator.createQueues();
    const second = await startWorkerProcess({
      WORKER_QUEUE_URL: queues.queueUrl,
      WORKER_DLQ_URL: queues.dlqUrl,
      AWS_ENDPOINT_URL: suite.emulator.endpoint,
      WORKER_DASHBOARD: 'on',
      WORKER_DASHBOARD_PORT: port,
    });
    suite.track(second);
    await waitUntilReady(second);
    expect(second.output()).toMatch(/no local dashboard: its port is unavailable/);
  }, 60_000);
});
