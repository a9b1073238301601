import 'reflect-metadata';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { AddressInfo, Server } from 'node:net';
import { NestFactory } from '@nestjs/core';
import { SqsWorkerService } from '@requeue/nest';
import { EmfMetrics } from '@requeue/sqs/emf';
import { Logger as NestPinoLogger } from 'nestjs-pino';
import { AppModule } from './app.module.js';
import type { WorkerConfig } from './config.js';
import { createWorkerLogger } from './logger.js';
import { allMetrics, DashboardMetrics } from './dashboard/dashboard-metrics.js';
import { startDashboard, type DashboardOptions } from './dashboard/server.js';
import { EmbeddedAwsError, isAddressInUse, startEmbeddedAws, type EmbeddedAws } from './embedded-aws.js';
import { workerOptions, type WorkerEnvOptions } from '@requeue/sqs/env';
import type { ConsumerConfig } from './consumers-config.js';
import type { Telemetry } from './telemetry.js';
import { fail } from './fail.js';
import { sqsClient } from './sqs-client.js';

type WorkerLogger = ReturnType<typeof createWorkerLogger>;

function banner(local: EmbeddedAws, config: WorkerConfig, healthUrl: string): string {
  return [
    '',
    'requeue worker: no WORKER_QUEUE_URL, so running on an embedded SQS/SNS emulator.',
    `  endpoint  ${local.endpoint}`,
    `  topic     ${local.topicArn}`,
    `  queue     ${local.queueUrl}`,
    `  DLQ       ${local.dlqUrl}`,
    `  handler   ${config.handler}; health on ${healthUrl}`,
    'Publish a message:',
    '  (the emulator checks no credentials: any will do, so the command brings its own)',
    `  AWS_ACCESS_KEY_ID=local AWS_SECRET_ACCESS_KEY=local aws --endpoint-url ${local.endpoint} --region us-east-1 \\`,
    `      sns publish --topic-arn ${local.topicArn} --message '{"id":"hello","simulate":{"outcome":"transient","failTimes":1}}'`,
    "  aws prints SNS's MessageId; with raw delivery (the stack's) SQS gives the message its own, the messageId the worker logs",
    '',
  ].join('\n');
}

/** The host to print in a listener's URL: a wildcard bind is reached on loopback, an IPv6 address in brackets. */
function reachableHost(host: string): string {
  if (host === '0.0.0.0' || host === '::') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

/**
 * Locally, the banner says where everything is. Elsewhere the health URL is worth a line
 * only when the port was chosen at bind time (`WORKER_HEALTH_PORT=0`): then nothing else says it.
 */
function announce(health: Server, config: WorkerConfig, local: EmbeddedAws | undefined): void {
  const healthUrl = `http://${reachableHost(config.healthHost)}:${(health.address() as AddressInfo).port}/health/ready`;
  if (local) process.stderr.write(banner(local, config, healthUrl));
  else if (config.healthPort === 0) process.stderr.write(`requeue worker: health on ${healthUrl}\n`);
}

/** Where the worker's queues are: the configured ones, or the embedded emulator's (started here). */
async function resolveQueues(
  config: WorkerConfig,
): Promise<{ queues: { queueUrl: string; dlqUrl: string }; endpoint: string | undefined; local?: EmbeddedAws }> {
  if (config.queues !== 'embedded') return { queues: config.queues, endpoint: config.endpoint };
  let local: EmbeddedAws;
  try {
    local = await startEmbeddedAws(config.emulatorPort);
  } catch (error) {
    if (error instanceof EmbeddedAwsError) fail(error.message);
    throw error;
  }
  return { queues: { queueUrl: local.queueUrl, dlqUrl: local.dlqUrl }, endpoint: local.endpoint, local };
}

/** One EMF writer per consumer, each naming its queue; the dashboard counts the first consumer's. */
function consumerMetrics(config: WorkerConfig, dashboardQueueUrl: string, activity: DashboardMetrics | undefined) {
  return (queueUrl: string) => {
    const emf = new EmfMetrics({ namespace: config.metricsNamespace, queueName: queueUrl.split('/').pop() ?? 'queue' });
    return activity && queueUrl === dashboardQueueUrl ? allMetrics(emf, activity) : emf;
  };
}

/** Engine options per consumer, from the worker's settings; each one made is kept in `engines`, to close at shutdown. */
function engineOptionsFor(config: WorkerConfig, logger: WorkerLogger, engines: WorkerEnvOptions[]) {
  return (consumer: ConsumerConfig): WorkerEnvOptions => {
    const settings = {
      ...config,
      queueUrl: consumer.queueUrl,
      deadLetterQueueUrl: consumer.dlqUrl,
      handlerName: consumer.handler,
      maxInFlight: consumer.maxInFlight,
      retryPolicy: consumer.retryPolicy,
      metricsNamespace: undefined,
    };
    engines.push(workerOptions(settings, { logger }));
    return engines.at(-1)!;
  };
}

/** The local dashboard when enabled; a port it cannot have leaves the worker running without one. */
async function dashboardFor(
  config: WorkerConfig,
  activity: DashboardMetrics | undefined,
  wiring: { sqs: SQSClient; queues: { queueUrl: string; dlqUrl: string }; scheduledRetries: DashboardOptions['scheduledRetries']; logger: WorkerLogger },
) {
  if (!activity) return undefined;
  const { sqs, queues, scheduledRetries, logger } = wiring;
  const dashboard = await startDashboard({
    ...config.dashboard,
    sqs,
    queueUrl: queues.queueUrl,
    dlqUrl: queues.dlqUrl,
    metrics: activity,
    scheduledRetries,
    logger,
  }).catch((error: unknown) => {
    // The dashboard is a window on the work, not the work: a taken port must not stop processing.
    logger.warn({ err: error, port: config.dashboard.port }, 'no local dashboard: its port is unavailable; set WORKER_DASHBOARD_PORT or WORKER_DASHBOARD=off');
    return undefined;
  });
  if (dashboard) process.stderr.write(`requeue worker: dashboard on ${dashboard.url}\n`);
  return dashboard;
}

/** Starts the worker on a valid configuration: its queues, the Nest app, the health server, the signals. */
export async function runWorker(config: WorkerConfig, telemetry: Telemetry | undefined): Promise<void> {
  const logger = createWorkerLogger(config);
  const { queues, endpoint, local } = await resolveQueues(config);
  const sqs = sqsClient(config.region, endpoint, local !== undefined);
  const activity = config.dashboard.enabled ? new DashboardMetrics() : undefined;
  const metricsFor = consumerMetrics(config, queues.queueUrl, activity);
  const engines: WorkerEnvOptions[] = [];
  const engineFor = engineOptionsFor(config, logger, engines);
  const app = await NestFactory.create(AppModule.register({ config, queues, sqs, logger, metricsFor, engineFor }), { bufferLogs: true });
  app.useLogger(app.get(NestPinoLogger));
  await app.listen(config.healthPort, config.healthHost).catch((error: unknown) => {
    if (isAddressInUse(error))
      fail(
        `WORKER_HEALTH_PORT: port ${config.healthPort} on ${config.healthHost} is taken (another worker?); ` +
          `stop what listens there, or set WORKER_HEALTH_PORT to a free port (0 for any)`,
      );
    throw error;
  });
  announce(app.getHttpServer() as Server, config, local);
  const dashboard = await dashboardFor(config, activity, { sqs, queues, scheduledRetries: () => app.get(SqsWorkerService).scheduledRetries(), logger });

  const stopping = stopOnSignals(logger, config.waitTimeSeconds, async () => {
    await app.close();
    await Promise.all(engines.map((engine) => engine.close()));
    // Every span has ended once the engine has drained: export what is still buffered.
    await telemetry?.shutdown().catch((error: unknown) => logger.warn({ err: error }, 'could not export the last spans'));
    await dashboard?.close();
    await local?.stop();
    sqs.destroy();
  });
  void requireAConsumer(app.get(SqsWorkerService), config.startTimeoutMs, logger, stopping);
}

/**
 * A worker none of whose consumers can start (no credentials, no queue, access denied)
 * exits 1 with one line once `WORKER_START_TIMEOUT_MS` has passed, so that the operator
 * or the orchestrator sees it; consumers that fail beside running ones are named and keep
 * trying. `0` keeps trying whatever happens.
 */
async function requireAConsumer(service: SqsWorkerService, timeoutMs: number, logger: WorkerLogger, stopping: () => boolean): Promise<void> {
  if (timeoutMs === 0) return;
  const { started, failing } = await service.startedWithin(timeoutMs);
  if (stopping()) return;
  if (started.length === 0 && failing.length > 0) {
    const { consumer, error } = failing[0]!;
    const others = failing.length > 1 ? ` (and ${failing.length - 1} other consumer(s))` : '';
    fail(`no consumer could start in ${timeoutMs / 1000} s; ${consumer}${others}: ${error.message}. Set WORKER_START_TIMEOUT_MS=0 to keep trying`);
  }
  for (const { consumer, error } of failing)
    logger.error(
      { consumer },
      `consumer ${consumer} has not started in ${timeoutMs / 1000} s (${error.message}); it keeps trying while ${started.join(', ')} run(s)`,
    );
}

/**
 * One Ctrl-C reaches the worker more than once: the terminal signals its whole foreground
 * group, and `npm start` passes the signal on to its child again. Repeats this soon after
 * the first are that one press; a person's second press comes later.
 */
const SAME_PRESS_MS = 500;

/** SIGTERM or SIGINT: drain, close everything, exit 0; a second signal exits at once with 1. Returns whether a stop began. */
function stopOnSignals(logger: WorkerLogger, waitTimeSeconds: number, close: () => Promise<void>): () => boolean {
  let stopping = false;
  let firstAt = 0;
  const shutDown = async (signal: NodeJS.Signals) => {
    if (stopping && Date.now() - firstAt < SAME_PRESS_MS) return;
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting without draining');
      process.exit(1);
    }
    stopping = true;
    firstAt = Date.now();
    logger.info({ signal }, 'shutting down');
    // An idle stop still waits for the long polls under way: say so, and how not to wait.
    process.stderr.write(
      `requeue worker: ${signal}: stopping; running handlers finish and open long polls return (up to ${waitTimeSeconds} s, ` +
        `WORKER_WAIT_TIME_SECONDS); ${signal === 'SIGINT' ? 'Ctrl-C' : 'a second signal'} again exits at once\n`,
    );
    await close();
    // The last metrics flush is on stdout: a pipe's pending writes die with process.exit.
    await new Promise<void>((resolve) => process.stdout.write('', () => resolve()));
    process.exit(0);
  };
  process.on('SIGTERM', (signal) => void shutDown(signal));
  process.on('SIGINT', (signal) => void shutDown(signal));
  return () => stopping;
}
