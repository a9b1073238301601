import { SQSClient, type Message } from '@aws-sdk/client-sqs';
import { withoutSdkCallLogging } from '@requeue/sqs';

/** The settings every system under test reads from its environment. */
export function benchSettings() {
  const required = (name: string) => {
    const value = process.env[name];
    if (!value) throw new Error(`${name} is not set`);
    return value;
  };
  return {
    queueUrl: required('BENCH_QUEUE_URL'),
    endpoint: required('BENCH_ENDPOINT'),
    concurrency: Number(process.env.BENCH_CONCURRENCY ?? '10'),
  };
}

/**
 * The peers' client, with the one SDK setting requeue's worker makes (no per-call logger
 * middleware), so the comparison is between the systems rather than their SDK settings.
 * The seed reference keeps the SDK's defaults: it runs as written.
 */
export function benchClient(endpoint: string, options: { sdkDefaults?: boolean } = {}): SQSClient {
  const client = new SQSClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'bench', secretAccessKey: 'bench' } });
  return options.sdkDefaults ? client : withoutSdkCallLogging(client);
}

/** The simulation handler's body (docs/contracts.md, 4.1), the one workload every system runs. */
interface BenchBody {
  id: string;
  simulate?: { outcome?: string; failTimes?: number; durationMs?: number };
  retryCount?: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Does what the simulation handler does for the outcomes the bench uses: wait
 * `durationMs`, then fail with a transient error while `attempt <= failTimes`.
 */
export async function simulate(rawBody: string, attempt: number): Promise<void> {
  const body = JSON.parse(rawBody) as BenchBody;
  if (body.simulate?.durationMs) await sleep(body.simulate.durationMs);
  const outcome = body.simulate?.outcome ?? 'ok';
  if (outcome !== 'ok' && attempt <= (body.simulate?.failTimes ?? Infinity)) throw new Error('simulated temporary failure');
}

/** The delivery count sqs-consumer based systems read as the attempt. */
export const attemptOf = (message: Message) => Number(message.Attributes?.ApproximateReceiveCount ?? 1);

/** BENCH_BULK_SINK_MS, `<ms per call>[,<ms per message>]`: one bulk call per batch before its messages' own outcomes. */
const BULK_SINK = process.env.BENCH_BULK_SINK_MS?.split(',').map(Number);

/** Runs a received batch all at once and splits it into the messages done and those that failed. */
export async function runBatch(messages: Message[]): Promise<{ done: Message[]; failed: Message[] }> {
  if (BULK_SINK && messages.length > 0) await sleep(BULK_SINK[0]! + (BULK_SINK[1] ?? 0) * messages.length);
  const outcomes = await Promise.all(
    messages.map((m) =>
      simulate(m.Body!, attemptOf(m)).then(
        () => true,
        () => false,
      ),
    ),
  );
  return { done: messages.filter((_, j) => outcomes[j]), failed: messages.filter((_, j) => !outcomes[j]) };
}

/** A batch handler in sqs-consumer's contract: run all at once, return the successes to delete. */
export async function handleBatch(messages: Message[]): Promise<Message[]> {
  return (await runBatch(messages)).done;
}

/** Tells the bench driver the system is polling. */
export function announceReady(): void {
  process.stdout.write('ready\n');
}
