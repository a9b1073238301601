/**
 * What a worker reports as it works: one typed stream that its metrics, logs, traces and
 * the dashboard's retry view are built on, and that an application can subscribe to
 * with `worker.on(name, listener)`. Listeners run synchronously, in the order they were
 * added; one that throws is logged and the worker carries on.
 */
export interface WorkerEvents {
  /** A message was received and will be processed. */
  received: { messageId: string; receivedAt: number };
  /** A handler ran (or was stopped at shutdown): how it went, and for how long. */
  handled: {
    messageId: string;
    originalMessageId: string;
    /** The attempt that ran: 1 for a first delivery. */
    attempt: number;
    durationMs: number;
    result: 'succeeded' | 'failed' | 'stopped';
    /** The failure's error type and text, when it failed. */
    failure?: { errorType: string; error: string; retryable: boolean };
  };
  /**
   * A message left the worker's hands: deleted after success, sent to wait for a retry or
   * a deferral, dead-lettered, released or held back. Emitted once the SQS calls that
   * settle it succeeded. A retry or deferral with the `in-place` transport is a FIFO
   * group's first message waiting in the worker, its group held; it is settled again
   * after it runs again.
   */
  settled: {
    messageId: string;
    originalMessageId: string;
    /** The SNS MessageId its publisher got, when it came through a topic (see `WorkerMessage.snsMessageId`). */
    snsMessageId?: string;
    attempt: number;
    outcome:
      | { kind: 'deleted' }
      | { kind: 'retry'; nextAttempt: number; delaySeconds: number; errorType: string; error: string; transport: 'copy' | 'visibility' | 'in-place' }
      | {
          kind: 'deferred';
          delaySeconds: number;
          cause: 'breaker-open' | 'rate-limited' | 'duplicate-in-progress' | 'not-before';
          /** Whether the handler ran (a failure its dependency's state confirmed is systemic) or not (the gate was closed, or it was early). */
          ran: boolean;
          errorType: string;
          error: string;
          transport: 'copy' | 'visibility' | 'in-place';
        }
      | {
          kind: 'dead-letter';
          reason: string;
          errorType: string;
          error: string;
          /** False when `x-dead-letter` did not fit: the letter went as it was, its reason only here and in the log. */
          carriesRecord: boolean;
          /** Which of SQS's limits left no room for `x-dead-letter`: the message's 10 attributes, or its size. */
          noRoom?: 'attributes' | 'size';
          /** The dead letter's id in the DLQ, when it carries no reason: what the log line points an operator at. */
          deadLetterMessageId?: string;
        }
      | { kind: 'released' }
      | { kind: 'held-back'; seconds: number };
  };
  /**
   * An SQS call that settles a message failed, so the message stays (and reappears after
   * its visibility timeout) or, after a copy or dead letter was sent, will exist twice.
   */
  settleFailed: {
    messageId: string;
    step: 'delete' | 'send-copy' | 'send-dead-letter' | 'hide' | 'release';
    /** Set when the message now exists twice (a delete failed after its copy or dead letter was sent). */
    duplicate: boolean;
    error: Error;
  };
  /** A receive failed; the poller backs off for `retryInMs`. */
  pollError: { error: unknown; consecutiveFailures: number; retryInMs: number };
}

/** How a message waits for its retry or deferral: a delayed copy, the original hidden, or a FIFO head in the worker. */
export type RetryTransport = Extract<WorkerEvents['settled']['outcome'], { kind: 'retry' }>['transport'];
