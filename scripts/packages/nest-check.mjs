import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { CreateQueueCommand, GetQueueAttributesCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { CheckError, run, waitFor } from './run.mjs';
import { startPaymentsFake } from './payments-fake.mjs';

const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
const region = 'us-east-1';

/**
 * The installed Nest example against the emulator: type-checks under strict, then a
 * success, a retry (503 once), a dead letter (422) and a SIGTERM while a handler runs,
 * which must finish before the process exits. Returns the queues for the CLI check.
 */
export async function checkNestApp(appDir, emulator) {
  await run('npx', ['tsc', '-p', '.'], { cwd: appDir });
  const sqs = new SQSClient({ endpoint: emulator.endpoint, region, credentials });
  // The emulator names its queues sqs.<region>.localhost; the SDK would follow that host, so
  // the app gets the same queues addressed at the emulator, as a region's own URLs are.
  const onEmulator = (url) => new URL(new URL(url).pathname, emulator.endpoint).href;
  const queueUrl = onEmulator((await sqs.send(new CreateQueueCommand({ QueueName: 'orders', Attributes: { VisibilityTimeout: '30' } }))).QueueUrl);
  const dlqUrl = onEmulator((await sqs.send(new CreateQueueCommand({ QueueName: 'orders-dlq' }))).QueueUrl);
  const payments = await startPaymentsFake();
  const healthPort = await emulator.freePort();
  const app = spawn(process.execPath, ['dist/main.js'], {
    cwd: appDir,
    env: { PATH: process.env.PATH, WORKER_QUEUE_URL: queueUrl, WORKER_DLQ_URL: dlqUrl, PAYMENTS_URL: payments.url, WORKER_HEALTH_PORT: String(healthPort), AWS_REGION: region, AWS_ACCESS_KEY_ID: 'local', AWS_SECRET_ACCESS_KEY: 'local', AWS_ENDPOINT_URL_SQS: emulator.endpoint },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  app.stdout.on('data', (chunk) => (output += chunk));
  app.stderr.on('data', (chunk) => (output += chunk));
  const exited = once(app, 'exit');
  try {
    const ready = () => {
      if (app.exitCode !== null) throw new CheckError(`the app exited with ${app.exitCode} while starting`);
      return fetch(`http://127.0.0.1:${healthPort}/health/ready`).then((r) => r.ok, () => false);
    };
    await waitFor('/health/ready', ready, 30_000);
    for (const [orderId, amountCents] of [['order-1', 1200], ['order-2', 800], ['order-3', -5]]) {
      await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify({ orderId, amountCents }) }));
    }
    await waitFor('a success, a retry and a dead letter', async () => (await depth(sqs, dlqUrl)).visible === 1 && payments.calls.filter((c) => c.status === 201).length === 2, 60_000);
    expectLine(output, 'charged order-1 on attempt 1');
    expectLine(output, 'charged order-2 on attempt 2');
    await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify({ orderId: 'order-slow', amountCents: 100 }) }));
    await waitFor('order-slow to reach the payment API', () => payments.received.has('order-slow'), 30_000);
    app.kill('SIGTERM');
    const [code, signal] = await Promise.race([exited, timeout(20_000, 'the app to exit after SIGTERM')]);
    if (code !== 0 && signal !== 'SIGTERM') throw new CheckError(`the app exited with ${code ?? signal} after SIGTERM:\n${output.slice(-3000)}`);
    expectLine(output, 'charged order-slow on attempt 1');
    const left = await depth(sqs, queueUrl);
    if (left.visible + left.inFlight + left.delayed !== 0) throw new CheckError(`messages left on the queue after a clean shutdown: ${JSON.stringify(left)}`);
    return { queueUrl, dlqUrl, paymentsCalls: payments.calls };
  } catch (error) {
    throw new CheckError(`${error.message}\n--- the app's output ---\n${output.slice(-3000)}`, { cause: error });
  } finally {
    if (app.exitCode === null && app.signalCode === null) app.kill('SIGKILL');
    await payments.close();
    sqs.destroy();
  }
}

async function depth(sqs, queueUrl) {
  const { Attributes: a = {} } = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible', 'ApproximateNumberOfMessagesDelayed'] }),
  );
  return { visible: Number(a.ApproximateNumberOfMessages), inFlight: Number(a.ApproximateNumberOfMessagesNotVisible), delayed: Number(a.ApproximateNumberOfMessagesDelayed) };
}

function expectLine(output, text) {
  if (!output.includes(text)) throw new CheckError(`the app never logged "${text}"`);
}

function timeout(ms, what) {
  return new Promise((_, reject) => setTimeout(() => reject(new CheckError(`timed out after ${ms / 1000} s waiting for ${what}`)), ms).unref());
}
