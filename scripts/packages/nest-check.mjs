import { CreateQueueCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { depth, expectLine, startApp } from './app-process.mjs';
import { CheckError, run, waitFor } from './run.mjs';
import { startPaymentsFake } from './payments-fake.mjs';

const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
const region = 'us-east-1';

/**
 * The installed Nest example against the emulator: type-checks under strict; its
 * producer publishes with RequeuePublisher; its two consumers show a success, a retry
 * (503 once), a schema dead letter (VALIDATION), a dead letter (422) and an email, and
 * drain both queues; a SIGTERM while a handler runs lets it finish before the process
 * exits. Returns the orders DLQ for the CLI check.
 */
export async function checkNestApp(appDir, emulator) {
  await run('npx', ['tsc', '-p', '.'], { cwd: appDir });
  const sqs = new SQSClient({ endpoint: emulator.endpoint, region, credentials });
  // The emulator names its queues sqs.<region>.localhost; the SDK would follow that host, so
  // the app gets the same queues addressed at the emulator, as a region's own URLs are.
  const onEmulator = (url) => new URL(new URL(url).pathname, emulator.endpoint).href;
  const create = async (name) => onEmulator((await sqs.send(new CreateQueueCommand({ QueueName: name, Attributes: { VisibilityTimeout: '30' } }))).QueueUrl);
  const [queueUrl, dlqUrl, emailQueueUrl, emailDlqUrl] = await Promise.all(['orders', 'orders-dlq', 'emails', 'emails-dlq'].map(create));
  const queues = { WORKER_QUEUE_URL: queueUrl, WORKER_DLQ_URL: dlqUrl, EMAIL_QUEUE_URL: emailQueueUrl, EMAIL_DLQ_URL: emailDlqUrl };
  const aws = { AWS_REGION: region, AWS_ACCESS_KEY_ID: 'local', AWS_SECRET_ACCESS_KEY: 'local', AWS_ENDPOINT_URL_SQS: emulator.endpoint };
  const payments = await startPaymentsFake();
  const healthPort = await emulator.freePort();
  const app = startApp(appDir, { PATH: process.env.PATH, ...queues, ...aws, PAYMENTS_URL: payments.url, WORKER_HEALTH_PORT: String(healthPort) });
  try {
    await app.ready(healthPort);
    await run(process.execPath, ['dist/publish.js'], { cwd: appDir, env: { PATH: process.env.PATH, ...queues, ...aws } });
    const drained = async (url) => Object.values(await depth(sqs, url)).every((n) => n === 0);
    await waitFor(
      'both queues drained: a success, a retry, two dead letters and an email',
      async () => (await depth(sqs, dlqUrl)).visible === 2 && (await drained(queueUrl)) && (await drained(emailQueueUrl)) && app.output().includes('emailed'),
      60_000,
    );
    expectLine(app.output(), 'charged order-1 (1200 EUR) on attempt 1');
    expectLine(app.output(), 'charged order-2 (800 EUR) on attempt 2');
    expectLine(app.output(), 'emailed ada@example.com (welcome, tenant acme)');
    if (payments.received.has('order-3')) throw new CheckError('order-3 failed the schema, yet its handler ran');
    const health = await (await fetch(`http://127.0.0.1:${healthPort}/health/ready`)).json();
    if (
      Object.keys(health.info?.['sqs-worker']?.consumers ?? {})
        .sort()
        .join() !== 'emails,orders'
    )
      throw new CheckError(`/health/ready does not report both consumers: ${JSON.stringify(health)}`);
    await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify({ orderId: 'order-slow', amountCents: 100 }) }));
    await waitFor('order-slow to reach the payment API', () => payments.received.has('order-slow'), 30_000);
    await app.stop();
    expectLine(app.output(), 'charged order-slow (100 EUR) on attempt 1');
    const left = await depth(sqs, queueUrl);
    if (left.visible + left.inFlight + left.delayed !== 0) throw new CheckError(`messages left on the queue after a clean shutdown: ${JSON.stringify(left)}`);
    return { queueUrl, dlqUrl, paymentsCalls: payments.calls };
  } catch (error) {
    throw new CheckError(`${error.message}\n--- the app's output ---\n${app.output().slice(-3000)}`, { cause: error });
  } finally {
    app.kill();
    await payments.close();
    sqs.destroy();
  }
}
