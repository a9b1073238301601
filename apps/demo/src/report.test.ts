import { describe, expect, it } from 'vitest';
import { renderReport, summarize } from './report.js';
import { retryLines, type DemoRun } from './run.js';
import type { DemoMessage } from './workload.js';

const PUBLISHED_AT = 1_000_000;
const message = (id: string, kind: string): DemoMessage => ({ id, kind, body: JSON.stringify({ id }), group: 'customer-1', expected: 'succeeded' });
const workload = [message('rate-limited-1', 'rate-limited'), message('transient-2', 'transient')];

/** Worker log lines as pino writes them, one per line, mixed with output that is not ours. */
const workerOutput = [
  JSON.stringify({
    level: 30,
    time: PUBLISHED_AT,
    msg: 'dependency rate-limiting or down; retrying without using an attempt',
    originalMessageId: 'o-rate',
    attempt: 1,
    errorType: 'RATE_LIMIT',
    delaySeconds: 2,
    dependency: 'simulation',
    cause: 'rate-limited',
  }),
  '{"_aws":{"CloudWatchMetrics":[]},"retrying":1}',
  JSON.stringify({
    level: 40,
    time: PUBLISHED_AT + 100,
    msg: 'handler failed; retrying',
    originalMessageId: 'o-transient',
    attempt: 1,
    errorType: 'TEMPORARY',
    delaySeconds: 1,
  }),
].join('\n');

const run: DemoRun = {
  publishedAt: PUBLISHED_AT,
  finishedAt: PUBLISHED_AT + 6000,
  fifo: false,
  snsMessageIds: { 'rate-limited-1': 'sns-rate', 'transient-2': 'sns-transient' },
  ledger: [
    { id: 'rate-limited-1', attempt: 1, at: PUBLISHED_AT + 5000, originalMessageId: 'o-rate' },
    { id: 'transient-2', attempt: 2, at: PUBLISHED_AT + 1200, originalMessageId: 'o-transient' },
  ],
  retries: retryLines(workerOutput),
  deadLetters: [],
  local: { endpoint: 'http://127.0.0.1:1', queueUrl: 'q', dlqUrl: 'd', topicArn: 't' },
};

describe('demo report', () => {
  it('tells a deferral (attempt kept, waiting for the dependency) from a retry that used an attempt', () => {
    const { summary, outcomes } = summarize(workload, run);
    const report = renderReport(workload, summary, outcomes);
    expect(report).toMatch(/\+0\.0 +attempt 1 +RATE_LIMIT, deferred 2 s \(dependency paused\)\n +\+5\.0 +attempt 1 +succeeded +waited 5\.0 s/);
    expect(report).toMatch(/\+0\.1 +attempt 1 +TEMPORARY, retry in 1 s\n +\+1\.2 +attempt 2 +succeeded +waited 1\.1 s/);
    expect(report).toContain('keeps its attempt');
    // The --json document keeps its shape: every retry line, deferrals included.
    expect(summary.retries).toEqual([
      { errorType: 'RATE_LIMIT', delaySeconds: 2, kind: 'deferral' },
      { errorType: 'TEMPORARY', delaySeconds: 1, kind: 'retry' },
    ]);
    expect(report).toContain('retries (an attempt used): 1 (TEMPORARY 1, delays 1-1 s)');
    expect(report).toContain('deferrals (attempt kept, dependency paused): 1 (RATE_LIMIT 1, delays 2-2 s)');
  });

  it("pairs each timeline's SNS MessageId (what the publisher got) with the SQS id the worker logs", () => {
    const { summary, outcomes } = summarize(workload, run);
    const report = renderReport(workload, summary, outcomes);
    expect(report).toContain('  transient-2  (transient)  SNS sns-transient → SQS o-transient\n');
    expect(report).toContain('  rate-limited-1  (rate-limited)  SNS sns-rate → SQS o-rate\n');
  });

  it('has no deferral note when nothing was deferred', () => {
    const plain = { ...run, retries: run.retries.filter((r) => r.deferredBecause === undefined) };
    const { summary, outcomes } = summarize(workload, plain);
    expect(renderReport(workload, summary, outcomes)).not.toContain('deferred');
  });

  it('says how to look at the dead letters: the commands for a stack kept up, else how to keep it up', () => {
    const { summary, outcomes } = summarize(workload, run);
    const stopped = renderReport(workload, summary, outcomes);
    expect(stopped).toContain('`npm run demo -- --dashboard` keeps it up');
    expect(stopped).not.toContain('npm start');
    const keptUp = renderReport(workload, summary, outcomes, { dlqUrl: 'http://sqs.us-east-1.localhost:4566/000000000000/Requeue-jobs-dlq' });
    expect(keptUp).toContain('  npx requeue dlq list --dlq http://sqs.us-east-1.localhost:4566/000000000000/Requeue-jobs-dlq\n');
  });
});
