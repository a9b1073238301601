import { GetQueueUrlCommand, SQSClient } from '@aws-sdk/client-sqs';
import { QueueUnavailableError } from '@requeue/sqs';
import { CliError, CliUsageError } from '../errors.js';

/** The DLQ of the stack `npm start` and the demo provision locally (infra's default queue name). */
export const LOCAL_DLQ_NAME = 'Requeue-jobs-dlq';
/** Where `npm start` puts its emulator: WORKER_EMULATOR_PORT, as the worker reads it, 4566 by default. */
export function localEndpoint(env: Env): string {
  const port = env.WORKER_EMULATOR_PORT?.trim();
  if (port && !/^\d{1,5}$/.test(port))
    throw new CliUsageError(`WORKER_EMULATOR_PORT must be the port \`npm start\` runs its emulator on, such as 4567, got ${JSON.stringify(port)}`);
  return `http://127.0.0.1:${port || 4566}`;
}

export interface DlqTarget {
  sqs: SQSClient;
  dlqUrl: string;
  /** Where requests go: an emulator, or undefined for AWS itself. */
  endpoint: string | undefined;
}

type Env = Readonly<Record<string, string | undefined>>;

const isLoopback = (endpoint: string) => /^https?:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?/.test(endpoint);

/**
 * The DLQ to work on: `--dlq`, else WORKER_DLQ_URL, else the DLQ of a local `npm start`.
 * Real AWS uses the standard credential chain; an emulator at AWS_ENDPOINT_URL (or the
 * local default) accepts any credentials, so placeholder ones are supplied for it.
 */
export async function resolveDlq(dlqFlag: string | undefined, env: Env): Promise<DlqTarget> {
  const configured = dlqFlag ?? env.WORKER_DLQ_URL;
  // The DLQ's URL is the operator's own input: a non-AWS one (an emulator) is its endpoint.
  const endpoint = env.AWS_ENDPOINT_URL_SQS ?? env.AWS_ENDPOINT_URL ?? (configured ? emulatorOrigin(configured) : localEndpoint(env));
  const local = endpoint !== undefined && isLoopback(endpoint) && !env.AWS_ACCESS_KEY_ID;
  const sqs = new SQSClient({
    // An AWS queue URL names its region; requests go to that region's endpoint.
    region: (configured && regionOfQueueUrl(configured)) ?? env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? 'us-east-1',
    ...(endpoint ? { endpoint } : {}),
    ...(local ? { credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}),
    // Queue URLs come from data (x-dead-letter, --to): requests go to the configured
    // endpoint, never to whatever host a URL names, with credentials signed for it.
    useQueueUrlAsEndpoint: false,
  });
  if (configured) return { sqs, dlqUrl: configured, endpoint };
  try {
    const found = await sqs.send(new GetQueueUrlCommand({ QueueName: LOCAL_DLQ_NAME }));
    return { sqs, dlqUrl: found.QueueUrl!, endpoint };
  } catch (error) {
    sqs.destroy();
    const hint =
      'pass --dlq <url> or set WORKER_DLQ_URL; for the local stack, ' +
      'start it with `npm start` and give this command the same WORKER_EMULATOR_PORT (or AWS_ENDPOINT_URL)';
    throw explainAwsError(error, { dlqUrl: LOCAL_DLQ_NAME, endpoint, hint });
  }
}

/** The region an AWS SQS queue URL names (`sqs.<region>.amazonaws.com`, or the legacy `<region>.queue.amazonaws.com`). */
export function regionOfQueueUrl(queueUrl: string): string | undefined {
  return /^https:\/\/(?:sqs\.([a-z0-9-]+)|([a-z0-9-]+)\.queue)\.amazonaws\.com(?:\.cn)?\//.exec(queueUrl)?.slice(1).find(Boolean);
}

function emulatorOrigin(queueUrl: string): string | undefined {
  if (regionOfQueueUrl(queueUrl) || !URL.canParse(queueUrl)) return undefined;
  const url = new URL(queueUrl);
  // Emulators name their queues on *.localhost (loopback by RFC 6761), which not every
  // resolver knows, and the local emulator answers 127.0.0.1 only.
  if (url.hostname === 'localhost' || url.hostname.endsWith('.localhost')) url.hostname = '127.0.0.1';
  return url.origin;
}

/**
 * One line saying what went wrong and what to do: the library's classification of queue
 * errors, worded for the CLI's flags and the local stack.
 */
export function explainAwsError(error: unknown, context: { dlqUrl: string; endpoint: string | undefined; hint?: string }): CliError {
  const failure = QueueUnavailableError.from(error, context.dlqUrl);
  const where = context.endpoint ?? 'AWS';
  const line = (text: string) => new CliError(text, 1, { cause: error });
  switch (failure.reason) {
    case 'no-queue':
      return line(`no queue ${context.dlqUrl} on ${where}: ${context.hint ?? 'check --dlq or WORKER_DLQ_URL'}`);
    case 'no-credentials':
      return line('no AWS credentials found: configure the standard chain (AWS_PROFILE, AWS_ACCESS_KEY_ID...) or point AWS_ENDPOINT_URL at an emulator');
    case 'unreachable':
      if (/ENOTFOUND|EAI_AGAIN|getaddrinfo/.test(failure.message)) return line(`cannot resolve the host of ${where}: check --dlq and AWS_ENDPOINT_URL`);
      return line(`nothing answers at ${where}: is \`npm start\` (or your emulator) running? ${context.hint ?? ''}`.trim());
    default:
      return line(failure.message);
  }
}
