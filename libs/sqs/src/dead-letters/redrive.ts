import { GetQueueAttributesCommand, StartMessageMoveTaskCommand } from '@aws-sdk/client-sqs';
import { DeadLetterOperationError } from './errors.js';
import type { DeadLetterQueue } from './scan.js';

/**
 * Whole-queue redrive through SQS's own StartMessageMoveTask: every message back to its
 * source queue (or `to`, a queue ARN). Emulators mostly lack it; `replay` does the same
 * message by message, with filters, anywhere.
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
    const name = (cause as { name?: string }).name ?? '';
    const unsupported = /UnknownOperation|InvalidAction|NotImplemented|UnsupportedOperation|not (supported|implemented)/i.test(`${name} ${(cause as Error).message}`);
    if (unsupported) {
      throw new DeadLetterOperationError(
        `this endpoint (${target.endpoint ?? 'AWS'}) does not support StartMessageMoveTask (whole-queue redrive): use \`requeue dlq replay\`, which moves messages one by one and takes filters`,
        { cause },
      );
    }
    throw cause;
  }
}
