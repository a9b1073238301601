import { ListDeadLetterSourceQueuesCommand } from '@aws-sdk/client-sqs';
import { DeadLetterOperationError } from './errors.js';
import type { DeadLetterQueue } from './scan.js';

/**
 * Where a replay may follow a dead letter's `x-dead-letter.sourceQueue` without `--to`.
 * That record is data anyone who can send to the DLQ can forge, so it is followed only to
 * a queue SQS itself names as a source of this DLQ (a queue whose redrive policy targets
 * it). On an endpoint without `ListDeadLetterSourceQueues` (some emulators) it falls back
 * to any queue of the DLQ's own account and region.
 */
export interface SourceQueuePolicy {
  allows(queueUrl: string): boolean;
  /** Why a refused queue was refused, for the operator. */
  readonly refusal: string;
}

/** Answered by an endpoint that does not implement an action: an emulator, never SQS. */
const UNIMPLEMENTED = new Set(['InvalidAction', 'UnsupportedOperation', 'NotImplemented']);

export async function sourceQueuePolicy(target: DeadLetterQueue): Promise<SourceQueuePolicy> {
  const listed = await listSourceQueues(target);
  if (listed === undefined) {
    return { allows: (queueUrl) => sameAccountAndRegion(target.dlqUrl, queueUrl), refusal: "is outside the DLQ's account and region" };
  }
  const sources = new Set(listed.map(queueIdentity));
  // The host too: SQS lists its own URLs, and a forged record may name their path on another host.
  return {
    allows: (queueUrl) => sameAccountAndRegion(target.dlqUrl, queueUrl) && sources.has(queueIdentity(queueUrl)),
    refusal: 'is not a source queue of this DLQ (none of the queues whose redrive policy targets it)',
  };
}

/** Every page of `ListDeadLetterSourceQueues`, or undefined where the endpoint lacks the action. */
async function listSourceQueues(target: DeadLetterQueue): Promise<string[] | undefined> {
  const urls: string[] = [];
  let nextToken: string | undefined;
  do {
    try {
      const page = await target.sqs.send(new ListDeadLetterSourceQueuesCommand({ QueueUrl: target.dlqUrl, MaxResults: 1000, NextToken: nextToken }));
      urls.push(...(page.queueUrls ?? []));
      nextToken = page.NextToken;
    } catch (cause) {
      if (UNIMPLEMENTED.has((cause as Error).name)) return undefined;
      throw new DeadLetterOperationError(
        `could not list the DLQ's source queues to check where its messages came from: ` +
          `${(cause as Error).message}; grant sqs:ListDeadLetterSourceQueues on the DLQ, or pass --to <queue-url>`,
        { cause },
      );
    }
  } while (nextToken);
  return urls;
}

/** A queue as account and name, the part of its URL that does not depend on the endpoint's host form. */
function queueIdentity(queueUrl: string): string {
  return URL.canParse(queueUrl) ? new URL(queueUrl).pathname.split('/').filter(Boolean).slice(-2).join('/') : queueUrl;
}

/**
 * Whether two queue URLs name the same account and region: the same scheme, host and port
 * (an SQS host names its region, `sqs.<region>.amazonaws.com`; an emulator is one host)
 * and the same account, the URL's first path segment.
 */
function sameAccountAndRegion(dlqUrl: string, queueUrl: string): boolean {
  if (!URL.canParse(dlqUrl) || !URL.canParse(queueUrl)) return false;
  const [dlq, queue] = [new URL(dlqUrl), new URL(queueUrl)];
  const accountOf = (url: URL) => url.pathname.split('/')[1] ?? '';
  return dlq.origin === queue.origin && accountOf(dlq) !== '' && accountOf(dlq) === accountOf(queue) && queue.username === '' && queue.password === '';
}
