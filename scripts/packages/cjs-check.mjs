import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ReceiveMessageCommand, SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { depth, expectLine, startApp } from './app-process.mjs';
import { CheckError, run, waitFor } from './run.mjs';

/** Optional peers of @requeue/sqs and @requeue/nest that this app must run without. */
const ABSENT = ['@opentelemetry/api', '@aws-lambda-powertools/idempotency', '@redis/client', 'redis', '@aws-sdk/client-dynamodb', '@aws-sdk/client-sns'];

/**
 * The CommonJS Nest 11 app, compiled with Nest's stock tsconfig (module commonjs), with no
 * optional peer installed, configured by nothing but `workerOptionsFromEnv()` and the
 * container environment `requeue local` resolved from the CDK app's template. It must run
 * with the stack's settings: the retry policy (a failing order dead-lettered after the
 * stack's maxAttempts), the concurrency (exactly the stack's maxInFlight at once under a
 * backlog) and metrics in the stack's namespace. `node` is the binary to run it with.
 */
export async function checkCommonJsApp(appDir, local, { freePort, node = process.execPath }) {
  await run('npx', ['tsc', '-p', '.'], { cwd: appDir });
  const main = readFileSync(join(appDir, 'dist/app.module.js'), 'utf8');
  if (!main.includes('require("@requeue/sqs/env")'))
    throw new CheckError('dist/app.module.js does not require() @requeue/sqs/env: the app did not compile to CommonJS');
  const present = ABSENT.filter((name) => existsSync(join(appDir, 'node_modules', name)));
  if (present.length > 0) throw new CheckError(`optional peers were installed, so this is no check of running without them: ${present.join(', ')}`);
  await expectMissingPeer(appDir, node);

  const container = local.containers.find((c) => c.environment.WORKER_QUEUE_URL !== undefined);
  if (!container) throw new CheckError(`no container of the template sets WORKER_QUEUE_URL: ${JSON.stringify(local.containers)}`);
  const stack = container.environment;
  const maxInFlight = Number(stack.WORKER_MAX_IN_FLIGHT);
  const { maxAttempts } = JSON.parse(stack.RETRY_POLICY);
  const healthPort = await freePort();
  // The task's secret is not in the template; a team gives its own locally.
  const secrets = container.notLocal.includes('WORKER_RETRY_STATE_KEYS') ? { WORKER_RETRY_STATE_KEYS: randomBytes(32).toString('base64') } : {};
  const env = { PATH: process.env.PATH, ...stack, ...local.env, ...secrets, WORKER_HEALTH_PORT: String(healthPort), WORKER_HEALTH_HOST: '127.0.0.1' };
  const sqs = new SQSClient({ endpoint: local.endpoint, region: local.region, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  const app = startApp(appDir, env, { node });
  try {
    await app.ready(healthPort);
    const slow = Array.from({ length: 4 * maxInFlight }, (_, i) => ({ orderId: `slow-${i}`, ms: 400 }));
    await sendAll(sqs, stack.WORKER_QUEUE_URL, [...slow, { orderId: 'doomed', failing: true }]);
    await waitFor(
      'the backlog handled and the failing order dead-lettered',
      async () => (await depth(sqs, stack.WORKER_DLQ_URL)).visible === 1 && Object.values(await depth(sqs, stack.WORKER_QUEUE_URL)).every((n) => n === 0),
      90_000,
    );
    const most = Math.max(...[...app.output().matchAll(/most at once so far: (\d+)/g)].map((m) => Number(m[1])));
    if (most !== maxInFlight) throw new CheckError(`the stack's WORKER_MAX_IN_FLIGHT is ${maxInFlight}, but the handler ran ${most} at once`);
    const deadLetter = await readDeadLetter(sqs, stack.WORKER_DLQ_URL);
    if (deadLetter.reason !== 'max-attempts' || deadLetter.attempts !== maxAttempts)
      throw new CheckError(`the stack's policy allows ${maxAttempts} attempts; the dead letter says ${JSON.stringify(deadLetter)}`);
    await app.stop();
    expectLine(app.output(), `"Namespace":"${stack.METRICS_NAMESPACE}"`);
    return { maxInFlight, maxAttempts, namespace: stack.METRICS_NAMESPACE };
  } catch (error) {
    throw new CheckError(`${error.message}\n--- the app's output ---\n${app.output().slice(-3000)}`, { cause: error });
  } finally {
    app.kill();
    sqs.destroy();
  }
}

/** A store configured without its optional peers stops the app at start, saying what to install. */
async function expectMissingPeer(appDir, node) {
  const script =
    "try { require('@requeue/sqs/env').workerOptionsFromEnv({ WORKER_QUEUE_URL: 'http://q', WORKER_DLQ_URL: 'http://d', WORKER_IDEMPOTENCY: 'dynamodb:orders' }); } catch (e) { console.log(e.name + ': ' + e.message); }";
  const { output } = await run(node, ['-e', script], { cwd: appDir });
  const expected =
    'MissingPeerError: WORKER_IDEMPOTENCY=dynamodb:… needs @aws-lambda-powertools/idempotency and @aws-sdk/client-dynamodb, which are not installed: npm install @aws-lambda-powertools/idempotency @aws-sdk/client-dynamodb';
  if (!output.includes(expected)) throw new CheckError(`WORKER_IDEMPOTENCY=dynamodb without its peers should say what to install; it said:\n${output}`);
}

async function sendAll(sqs, queueUrl, bodies) {
  for (let i = 0; i < bodies.length; i += 10) {
    const entries = bodies.slice(i, i + 10).map((body, j) => ({ Id: String(j), MessageBody: JSON.stringify(body) }));
    const { Failed = [] } = await sqs.send(new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: entries }));
    if (Failed.length > 0) throw new CheckError(`could not send: ${JSON.stringify(Failed)}`);
  }
}

async function readDeadLetter(sqs, dlqUrl) {
  const { Messages = [] } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: dlqUrl, MessageAttributeNames: ['All'], VisibilityTimeout: 0 }));
  const attribute = Messages[0]?.MessageAttributes?.['x-dead-letter']?.StringValue;
  if (!attribute) throw new CheckError('the dead letter carries no x-dead-letter');
  return JSON.parse(attribute);
}
