import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { PublishBatchCommand, SNSClient } from '@aws-sdk/client-sns';
import { ChangeMessageVisibilityCommand, ReceiveMessageCommand, SQSClient, type Message } from '@aws-sdk/client-sqs';
import { freePort, readSimulationLedger, startLocalRequeueStack, type SimulationLedgerLine } from '@requeue/local-aws';
import { queueDepth } from '@requeue/sqs';
import { CliError } from '../errors.js';
import { DEMO_RETRY_POLICY, type DemoMessage } from './workload.js';

// The worker app, a declared dependency: the demo runs it as its own process, as ECS would.
const WORKER_ENTRY = createRequire(import.meta.url).resolve('@requeue/worker');
const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };

/** A retry the worker decided, from its log. */
export interface RetryLogLine {
  originalMessageId: string;
  attempt: number;
  errorType: string;
  delaySeconds: number;
  at: number;
  /**
   * Set for a deferral: the message's dependency was paused (a 429 or quota error paused it)
   * or its circuit was open, so the attempt was kept and the message waits for the dependency.
   */
  deferredBecause?: 'rate-limited' | 'breaker-open';
}

export interface Progress {
  elapsedSeconds: number;
  published: number;
  succeeded: number;
  /** Visible or being handled. */
  retrying: number;
  /** Delayed: waiting out a backoff. */
  waiting: number;
  deadLettered: number;
}

export interface DemoRun {
  publishedAt: number;
  finishedAt: number;
  fifo: boolean;
  ledger: SimulationLedgerLine[];
  retries: RetryLogLine[];
  deadLetters: Message[];
  local: { endpoint: string; queueUrl: string; dlqUrl: string; topicArn: string };
}


type RetryLogEntry = { msg?: string; time: number; originalMessageId: string; attempt: number; errorType: string; delaySeconds: number; cause?: RetryLogLine['deferredBecause'] };

/** The worker's pino lines about retries (deferrals included); EMF documents and other logs are skipped. */
export function retryLines(output: string): RetryLogLine[] {
  const lines: RetryLogLine[] = [];
  for (const line of output.split('\n')) {
    if (!line.includes('retrying')) continue;
    try {
      const entry = JSON.parse(line) as RetryLogEntry;
      if (!entry.msg?.includes('retrying')) continue;
      const { originalMessageId, attempt, errorType, delaySeconds, time } = entry;
      lines.push({ originalMessageId, attempt, errorType, delaySeconds, at: time, ...(entry.cause ? { deferredBecause: entry.cause } : {}) });
    } catch {
      // not a log line of ours
    }
  }
  return lines;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitForHealth(worker: ChildProcess, port: number, output: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (worker.exitCode !== null) throw new CliError(`the worker exited while starting:\n${output().slice(-2000)}`);
    const status = await fetch(`http://127.0.0.1:${port}/health/ready`).then((r) => r.status, () => 0);
    if (status === 200) return;
    await sleep(100);
  }
  throw new CliError('the worker did not become ready within 30 s');
}

/**
 * The demo: an embedded emulator provisioned from the stack template, the real worker
 * app as a child process with the simulation handler, the workload published to the SNS
 * topic, and progress until every message has succeeded or reached the DLQ.
 */
export interface DemoOptions {
  onProgress: (progress: Progress) => void;
  /** Serve the worker's local dashboard on this port (0: any free port). */
  dashboardPort?: number;
  onDashboard?: (url: string) => void;
  /** A pause before publishing, to open the dashboard first. */
  publishDelayMs?: number;
  /** Awaited once the run is accounted for, before everything stops: keeps the dashboard up. */
  holdOpen?: (run: DemoRun) => Promise<void>;
  timeoutMs?: number;
  /** Run on the stack's FIFO variant, publishing each message in its group. */
  fifo?: boolean;
}

export async function runDemo(workload: readonly DemoMessage[], options: DemoOptions): Promise<DemoRun> {
  const { onProgress, timeoutMs = 60_000 } = options;
  if (!existsSync(WORKER_ENTRY)) throw new CliError(`the worker is not built (${WORKER_ENTRY}): run \`npm run demo\`, which builds first`);
  const local = await startLocalRequeueStack({ port: 0, fifo: options.fifo ?? false });
  const { queueUrl, dlqUrl, topicArn } = local;
  const sqs = new SQSClient({ endpoint: local.endpoint, region: local.region, credentials });
  const sns = new SNSClient({ endpoint: local.endpoint, region: local.region, credentials });
  const ledgerPath = join(mkdtempSync(join(tmpdir(), 'requeue-demo-')), 'ledger.jsonl');
  const healthPort = await freePort();
  let output = '';
  const worker = spawn(process.execPath, [WORKER_ENTRY], {
    env: {
      ...process.env,
      NODE_ENV: 'development',
      WORKER_QUEUE_URL: queueUrl,
      WORKER_DLQ_URL: dlqUrl,
      AWS_ENDPOINT_URL: local.endpoint,
      AWS_REGION: local.region,
      AWS_ACCESS_KEY_ID: credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
      WORKER_HANDLER: 'simulation',
      WORKER_WAIT_TIME_SECONDS: '1',
      WORKER_HEALTH_HOST: '127.0.0.1',
      WORKER_HEALTH_PORT: String(healthPort),
      SIMULATION_LEDGER: ledgerPath,
      RETRY_POLICY: JSON.stringify(DEMO_RETRY_POLICY),
      LOG_LEVEL: 'info',
      WORKER_DASHBOARD: options.dashboardPort === undefined ? 'off' : 'on',
      WORKER_DASHBOARD_PORT: String(options.dashboardPort ?? 0),
      // The demo's rate limits are single messages' simulated 429s, not a dependency's rate.
      // On FIFO, groups run one message at a time, and pacing would take that slow trickle
      // for the rate the dependency admits; the breaker and the pauses stay on.
      ...(options.fifo ? { WORKER_ADAPTIVE_CONCURRENCY: 'off' } : {}),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  worker.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  worker.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  try {
    await waitForHealth(worker, healthPort, () => output);
    if (options.dashboardPort !== undefined) {
      const url = /dashboard on (\S+)/.exec(output)?.[1];
      if (!url) throw new CliError(`the worker did not start its dashboard:\n${output.slice(-2000)}`);
      options.onDashboard?.(url);
    }
    if (options.publishDelayMs) await sleep(options.publishDelayMs);
    const publishedAt = Date.now();
    for (let start = 0; start < workload.length; start += 10) {
      const batch = workload.slice(start, start + 10);
      const out = await sns.send(
        new PublishBatchCommand({
          TopicArn: topicArn,
          PublishBatchRequestEntries: batch.map((message, i) => ({
            Id: String(i),
            Message: message.body,
            MessageAttributes: message.attributes,
            ...(options.fifo ? { MessageGroupId: message.group } : {}),
          })),
        }),
      );
      if (out.Failed?.length) throw new CliError(`SNS refused ${out.Failed.length} messages: ${JSON.stringify(out.Failed)}`);
    }

    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const depth = await queueDepth(sqs, queueUrl);
      const dlq = await queueDepth(sqs, dlqUrl);
      const succeeded = new Set(readSimulationLedger(ledgerPath).map((line) => line.id)).size;
      const progress = {
        elapsedSeconds: (Date.now() - publishedAt) / 1000,
        published: workload.length,
        succeeded,
        retrying: depth.visible + depth.inFlight,
        waiting: depth.delayed,
        deadLettered: dlq.visible + dlq.inFlight,
      };
      onProgress(progress);
      if (progress.succeeded + progress.deadLettered >= workload.length && depth.visible + depth.inFlight + depth.delayed === 0) break;
      if (worker.exitCode !== null) throw new CliError(`the worker exited mid-run:\n${output.slice(-2000)}`);
      if (Date.now() > deadline) throw new CliError(`not every message was accounted for within ${timeoutMs / 1000} s: ${JSON.stringify(progress)}`);
      await sleep(1000);
    }
    const finishedAt = Date.now();
    const deadLetters = await peek(sqs, dlqUrl);
    const run = {
      publishedAt,
      finishedAt,
      fifo: options.fifo ?? false,
      ledger: readSimulationLedger(ledgerPath),
      retries: retryLines(output),
      deadLetters,
      local: { endpoint: local.endpoint, queueUrl: queueUrl, dlqUrl: dlqUrl, topicArn: topicArn },
    };
    await options.holdOpen?.(run);
    return run;
  } finally {
    if (worker.exitCode === null) {
      const exited = new Promise((resolve) => worker.once('exit', resolve));
      worker.kill('SIGTERM');
      await exited;
    }
    sqs.destroy();
    sns.destroy();
    await local.stop();
  }
}

/** Reads every DLQ message and makes it visible again, so the dashboard (and the DLQ CLI) still see them. */
async function peek(sqs: SQSClient, queueUrl: string): Promise<Message[]> {
  const all: Message[] = [];
  for (;;) {
    const out = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0, VisibilityTimeout: 30, MessageAttributeNames: ['All'], MessageSystemAttributeNames: ['All'] }),
    );
    if (!out.Messages?.length) break;
    all.push(...out.Messages);
  }
  for (const message of all) {
    await sqs.send(new ChangeMessageVisibilityCommand({ QueueUrl: queueUrl, ReceiptHandle: message.ReceiptHandle!, VisibilityTimeout: 0 }));
  }
  return all;
}
