import type { MessageAttributeValue } from '@aws-sdk/client-sqs';

/** Timers as `@requeue/sqs/time`'s `WorkerTimers`: `after` calls `fire` once, and returns what cancels it. */
export interface MemorySqsTimers {
  /** Calls `fire` once, `ms` from now on the clock; the function returned cancels it. */
  after(ms: number, fire: () => void): () => void;
}

/** The SQS calls the worker makes, which `MemorySqs` answers (any other is refused). */
export type SqsCommandName = 'ReceiveMessage' | 'SendMessageBatch' | 'DeleteMessageBatch' | 'ChangeMessageVisibilityBatch' | 'GetQueueAttributes';

/** The queue `MemorySqs` stands in for. */
export interface MemorySqsOptions {
  /** Its URL; one ending in `.fifo` makes it a FIFO queue. Sends to any other URL are recorded in `sent` only. */
  queueUrl: string;
  /** The clock visibility timeouts, delays and long polls run on. @default Date.now */
  now?: () => number;
  /** The timers long polls wait on, with `now` on the same clock (`VirtualTime` from `@requeue/sqs/time`). @default Node's timers */
  timers?: MemorySqsTimers;
  /** The queue's `VisibilityTimeout`: how long a received message stays hidden. @default 30 */
  visibilityTimeoutSeconds?: number;
  /** The queue's `MaximumMessageSize`: larger sends are refused as SQS refuses them. @default 1 MiB */
  maximumMessageSize?: number;
  /** The queue's redrive: a message received this many times is moved out (counted in `redriven`) at its next receive. */
  maxReceiveCount?: number;
  /**
   * Awaited before a call is answered: a round trip (`() => sleep(15)`), or a gate a
   * test opens (held deletes, a receive that hangs). Receives wait here only once they
   * have messages to return; an empty long poll waits for messages first.
   */
  beforeAnswer?: (command: SqsCommandName) => Promise<void> | undefined;
  /**
   * Keep the lists of what was sent, received, deleted and made visible. A long simulation
   * turns them off: `calls`, `remaining` and the redrive's lists are kept either way.
   * @default true
   */
  history?: boolean;
}

/** A message another queue was sent (a DLQ), or this queue was sent (a retry copy). */
export interface SentMessage {
  /** The queue it was sent to. */
  queueUrl: string;
  /** The message body, as sent. */
  body: string;
  /** Its message attributes, as sent. */
  attributes: Record<string, MessageAttributeValue>;
  /** `DelaySeconds`, when the send set one. */
  delaySeconds: number | undefined;
  /** `MessageGroupId` (FIFO). */
  groupId: string | undefined;
  /** `MessageDeduplicationId` (FIFO). */
  deduplicationId: string | undefined;
  /** The `AWSTraceHeader` system attribute. */
  traceHeader: string | undefined;
}
