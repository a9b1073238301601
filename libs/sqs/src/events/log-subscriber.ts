import { redactUrlCredentials } from '@requeue/retry/engine';
import { causeId, deadLetterCause } from '../dead-letters/cause.js';
import type { WorkerLogger } from './logger.js';
import type { EngineEvents } from './engine-events.js';
import type { EventStream } from './event-stream.js';

const SETTLE_FAILED: Record<EngineEvents['settleFailed']['step'], { level: 'warn' | 'error'; message: string }> = {
  'send-dead-letter': { level: 'error', message: 'could not send to the DLQ; the message stays and reappears' },
  'send-copy': { level: 'warn', message: 'could not send the retry copy; delaying the original instead' },
  hide: { level: 'error', message: 'could not delay the message; it reappears after its visibility timeout' },
  release: { level: 'warn', message: 'could not release the message; it reappears after its visibility timeout' },
  delete: { level: 'warn', message: 'delete failed; the message will be delivered again' },
};

/** What the log says of a dead letter sent without its reason, by the limit met. */
const NO_ROOM = {
  attributes:
    "the message has 10 attributes, SQS's maximum: x-dead-letter did not fit, so the dead letter is the message unchanged and its reason is in this line",
  size:
    "the message is too near the DLQ's MaximumMessageSize: x-dead-letter did not fit, " +
    'so the dead letter is the message unchanged and its reason is in this line',
} as const;

/**
 * A dead letter's cause as `requeue dlq triage` groups it, so that a log query can group
 * the worker's dead-letterings the same way, under the same ids.
 */
function causeFields(reason: string, errorType: string, error: string, sourceQueue: string) {
  const cause = deadLetterCause({ reason, errorType, error, sourceQueue });
  return { deadLetterGroup: causeId(cause), fingerprint: cause.fingerprint, dependency: cause.dependency, sourceQueue };
}

/** The worker's log lines about messages and receives, from its events. */
export function subscribeLogs(events: EventStream<EngineEvents>, logger: WorkerLogger, queueUrl: string): void {
  events.on('settled', ({ messageId, originalMessageId, snsMessageId, attempt, outcome }) => {
    // Most messages are deleted on their first attempt, which logs nothing: nothing is built
    // for them. One that had failed before says how its retries ended.
    if (outcome.kind === 'deleted' && attempt <= 1) return;
    const fields = { messageId, originalMessageId, ...(snsMessageId ? { snsMessageId } : {}), attempt };
    if (outcome.kind === 'deleted') return logger.info(fields, `done on attempt ${attempt}`);
    if (outcome.kind === 'dead-letter') {
      const { reason, errorType, error, noRoom, deadLetterMessageId } = outcome;
      const cause = { ...fields, reason, errorType, error, ...causeFields(reason, errorType, error, queueUrl) };
      // The same line either way, so log queries and the dashboards' by-cause tables count it.
      if (!noRoom) logger.error(cause, 'dead-lettered');
      else logger.error({ ...cause, noRoom, deadLetterMessageId, limit: NO_ROOM[noRoom] }, 'dead-lettered');
    } else if (outcome.kind === 'retry') {
      const retrying = { ...fields, errorType: outcome.errorType, delaySeconds: outcome.delaySeconds, error: outcome.error };
      if (attempt === 1) logger.warn(retrying, 'handler failed; retrying');
      else logger.info(retrying, 'handler failed again; retrying');
    } else if (outcome.kind === 'deferred' && outcome.ran) {
      logger.info(
        { ...fields, errorType: outcome.errorType, delaySeconds: outcome.delaySeconds, cause: outcome.cause },
        'dependency rate-limiting or down; retrying without using an attempt',
      );
    }
  });
  events.on('settleFailed', ({ messageId, step, duplicate, error }) => {
    if (duplicate) return logger.warn({ messageId, err: error }, 'delete failed after the copy was sent; a duplicate will follow');
    const { level, message } = SETTLE_FAILED[step];
    logger[level]({ messageId, err: error }, message);
  });
  events.on('pollError', ({ error, consecutiveFailures, retryInMs }) => {
    // The 1st, 2nd, 4th, 8th… failure: an outage is visible without a flood.
    if ((consecutiveFailures & (consecutiveFailures - 1)) !== 0) return;
    logger.warn(
      { queueUrl: redactUrlCredentials(queueUrl), failures: consecutiveFailures, retryInMs: Math.round(retryInMs), err: error },
      'receive failed; backing off',
    );
  });
}
