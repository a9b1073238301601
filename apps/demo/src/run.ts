import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { PublishBatchCommand, SNSClient } from '@aws-sdk/client-sns';
import { SQSClient, type Message } from '@aws-sdk/client-sqs';
import { deploymentProps, requeueStackTemplate } from '@requeue/infra';
import { startLocalRequeueStack, type LocalRequeueStack } from '@requeue/local-aws';
import { readSimulationLedger, type SimulationLedgerLine } from '@requeue/local-aws/simulation-ledger';
import { queueDepth } from '@requeue/sqs/dead-letters';
import { readDeadLetters } from './dead-letters.js';
import { DemoError } from './errors.js';
import { progressOf, type Progress } from './progress.js';
import { DEMO_RETRY_POLICY, type DemoMessage } from './workload.js';

export type { Progress };

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

export interface DemoRun {
  publishedAt: number;
  finishedAt: number;
  fifo: boolean;
  /**
   * The MessageId SNS gave each message, by demo id. With raw delivery (the stack's default)
   * SQS receives no SNS envelope, so the worker logs the SQS id only; the report pairs them.
   */
  snsMessageIds: Record<string, string>;
  ledger: SimulationLedgerLine[];
  retries: RetryLogLine[];
  deadLetters: Message[];
  local: { endpoint: string; queueUrl: string; dlqUrl: string; topicArn: string };
}

type RetryLogEntry = {
  msg?: string;
  time: number;
  originalMessageId: string;
  attempt: number;
  errorType: string;
  delaySeconds: number;
  cause?: RetryLogLine['deferredBecause'];
};

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

/** Resolves once the worker is ready, at the health URL it prints once bound (it binds any free port). */
async function waitForHealth(worker: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (worker.exitCode !== null) throw new DemoError(`the worker exited while starting:\n${output().slice(-2000)}`);
    const url = /health on (\S+)/.exec(output())?.[1];
    const status = url
      ? await fetch(url).then(
          (r) => r.status,
          () => 0,
        )
      : 0;
    if (status === 200) return;
    await sleep(100);
  }
  throw new DemoError('the worker did not become ready within 30 s');
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
  if (!existsSync(WORKER_ENTRY)) throw new DemoError(`the worker is not built (${WORKER_ENTRY}): run \`npm run demo\`, which builds first`);
  const local = await startLocalRequeueStack({ port: 0, template: requeueStackTemplate(deploymentProps({ fifo: options.fifo ?? false })) });
  const { queueUrl, dlqUrl, topicArn } = local;
  const sqs = new SQSClient({ endpoint: local.endpoint, region: local.region, credentials });
  const sns = new SNSClient({ endpoint: local.endpoint, region: local.region, credentials });
  const ledgerPath = join(mkdtempSync(join(tmpdir(), 'requeue-demo-')), 'ledger.jsonl');
  const worker = await spawnDemoWorker(local, ledgerPath, options);
  try {
    await waitForHealth(worker.process, worker.output);
    if (options.dashboardPort !== undefined) {
      const url = /dashboard on (\S+)/.exec(worker.output())?.[1];
      if (!url) throw new DemoError(`the worker did not start its dashboard:\n${worker.output().slice(-2000)}`);
      options.onDashboard?.(url);
    }
    if (options.publishDelayMs) await sleep(options.publishDelayMs);
    const publishedAt = Date.now();
    const snsMessageIds = await publishWorkload(sns, topicArn, workload, options.fifo ?? false);
    await untilAccountedFor({ sqs, queueUrl, ledgerPath, worker, published: workload.length, publishedAt, options });
    const run = {
      publishedAt,
      finishedAt: Date.now(),
      fifo: options.fifo ?? false,
      snsMessageIds,
      ledger: readSimulationLedger(ledgerPath),
      retries: retryLines(worker.output()),
      deadLetters: await readDeadLetters(sqs, dlqUrl),
      local: { endpoint: local.endpoint, queueUrl, dlqUrl, topicArn },
    };
    await options.holdOpen?.(run);
    return run;
  } finally {
    if (worker.process.exitCode === null) {
      const exited = new Promise((resolve) => worker.process.once('exit', resolve));
      worker.process.kill('SIGTERM');
      await exited;
    }
    sqs.destroy();
    sns.destroy();
    await local.stop();
  }
}

interface DemoWorker {
  process: ChildProcess;
  output: () => string;
}

/** The real worker app, as its own process, on the local stack with the simulation handler and one-second backoffs. */
async function spawnDemoWorker(local: LocalRequeueStack, ledgerPath: string, options: DemoOptions): Promise<DemoWorker> {
  let output = '';
  const child = spawn(process.execPath, [WORKER_ENTRY], {
    env: {
      ...process.env,
      NODE_ENV: 'development',
      WORKER_QUEUE_URL: local.queueUrl,
      WORKER_DLQ_URL: local.dlqUrl,
      AWS_ENDPOINT_URL: local.endpoint,
      AWS_REGION: local.region,
      AWS_ACCESS_KEY_ID: credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
      WORKER_HANDLER: 'simulation',
      WORKER_WAIT_TIME_SECONDS: '1',
      WORKER_HEALTH_HOST: '127.0.0.1',
      WORKER_HEALTH_PORT: '0',
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
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return { process: child, output: () => output };
}

/** To the stack's topic, ten per call; on FIFO each message in its group. Resolves with the SNS MessageId of each, by demo id. */
async function publishWorkload(sns: SNSClient, topicArn: string, workload: readonly DemoMessage[], fifo: boolean): Promise<Record<string, string>> {
  const snsMessageIds: Record<string, string> = {};
  for (let start = 0; start < workload.length; start += 10) {
    const batch = workload.slice(start, start + 10);
    const out = await sns.send(
      new PublishBatchCommand({
        TopicArn: topicArn,
        PublishBatchRequestEntries: batch.map((message, i) => ({
          Id: String(i),
          Message: message.body,
          MessageAttributes: message.attributes,
          ...(fifo ? { MessageGroupId: message.group } : {}),
        })),
      }),
    );
    if (out.Failed?.length) throw new DemoError(`SNS refused ${out.Failed.length} messages: ${JSON.stringify(out.Failed)}`);
    for (const entry of out.Successful ?? []) snsMessageIds[batch[Number(entry.Id)]!.id] = entry.MessageId!;
  }
  return snsMessageIds;
}

interface Accounting {
  sqs: SQSClient;
  queueUrl: string;
  ledgerPath: string;
  worker: DemoWorker;
  published: number;
  publishedAt: number;
  options: DemoOptions;
}

/** Reports progress every second until every message has succeeded or reached the DLQ, and the queue is empty. */
async function untilAccountedFor({ sqs, queueUrl, ledgerPath, worker, published, publishedAt, options }: Accounting): Promise<void> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const depth = await queueDepth(sqs, queueUrl);
    const progress = progressOf(published, readSimulationLedger(ledgerPath), worker.output(), (Date.now() - publishedAt) / 1000);
    options.onProgress(progress);
    if (progress.succeeded + progress.deadLettered >= published && depth.visible + depth.inFlight + depth.delayed === 0) return;
    if (worker.process.exitCode !== null) throw new DemoError(`the worker exited mid-run:\n${worker.output().slice(-2000)}`);
    if (Date.now() > deadline) throw new DemoError(`not every message was accounted for within ${timeoutMs / 1000} s: ${JSON.stringify(progress)}`);
    await sleep(1000);
  }
}
