import { GetQueueAttributesCommand, StartMessageMoveTaskCommand } from '@aws-sdk/client-sqs';
import { DeadLetterOperationError } from './errors.js';
import type { DeadLetterQueue } from './scan.js';

/**
 * Whole-queue redrive through SQS's own StartMessageMoveTask: every message back to its
 * source queue (or `to`, a queue ARN), at most 500 a second, with no stop condition.
 * Emulators mostly lack it; `canaryRedrive` and `replay` move messages one by one, with
 * filters, anywhere.
 */
export async function redriveDeadLetters(target: DeadLetterQueue & { endpoint?: string }, options: { toArn?: string; maxPerSecond?: number }): Promise<string> {
  const attributes = await target.sqs.send(new GetQueueAttributesCommand({ QueueUrl: target.dlqUrl, AttributeNames: ['QueueArn'] }));
  try {
    const task = await target.sqs.send(
      new StartMessageMoveTaskCommand({
        SourceArn: attributes.Attributes!.QueueArn!,
        DestinationArn: options.toArn,
        MaxNumberOfMessagesPerSecond: options.maxPerSecond,
      }),
    );
    return task.TaskHandle ?? '';
  } catch (cause) {
    if (unsupportedAnswer(cause)) {
      throw new DeadLetterOperationError(
        `this endpoint (${target.endpoint ?? 'AWS'}) does not support StartMessageMoveTask (whole-queue redrive): ` +
          `drop --move-task for requeue's own redrive (\`requeue dlq redrive --all\`: ` +
          `message by message, a canary first, filters), or use \`requeue dlq replay\``,
        { cause },
      );
    }
    throw cause;
  }
}

/**
 * How an endpoint without the operation answers: an SQS error naming it unknown, or
 * (some emulators) a page that is not SQS's JSON at all, or a 404 or 501.
 */
function unsupportedAnswer(cause: unknown): boolean {
  const {
    name = '',
    message = '',
    $response,
    $metadata,
  } = cause as { name?: string; message?: string; $response?: { statusCode?: number }; $metadata?: { httpStatusCode?: number } };
  const status = $response?.statusCode ?? $metadata?.httpStatusCode;
  if (name === 'SyntaxError' || status === 404 || status === 501) return true;
  return /UnknownOperation|InvalidAction|NotImplemented|UnsupportedOperation|not (supported|implemented)/i.test(`${name} ${message}`);
}
