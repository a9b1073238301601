import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  type Message,
} from '@aws-sdk/client-sqs';
import type { SqsCommandName } from './memory-sqs-options.js';
import type { StoredMessage } from './memory-sqs-store.js';
import type { SqsLimitCheck } from './sqs-limits.js';

/** A request SQS refuses whole throws as the SDK throws SQS's error: named by its code. */
export function refusedOrChecked(check: SqsLimitCheck): SqsLimitCheck {
  if (check.request) throw Object.assign(new Error(check.request.message), { name: check.request.code, $fault: 'client' });
  return check;
}

export function entryFailures(check: SqsLimitCheck) {
  return [...check.entries].map(([id, failure]) => ({ Id: id, SenderFault: true, Code: failure.code, Message: failure.message }));
}

export function commandName(command: unknown): SqsCommandName {
  if (command instanceof ReceiveMessageCommand) return 'ReceiveMessage';
  if (command instanceof SendMessageBatchCommand) return 'SendMessageBatch';
  if (command instanceof DeleteMessageBatchCommand) return 'DeleteMessageBatch';
  if (command instanceof ChangeMessageVisibilityBatchCommand) return 'ChangeMessageVisibilityBatch';
  if (command instanceof GetQueueAttributesCommand) return 'GetQueueAttributes';
  throw new Error(`the in-memory SQS does not answer ${(command as object).constructor.name}`);
}

export function toMessage(stored: StoredMessage): Message {
  return {
    MessageId: stored.id,
    ReceiptHandle: stored.receiptHandle,
    Body: stored.body,
    ...(Object.keys(stored.attributes).length > 0 ? { MessageAttributes: stored.attributes } : {}),
    Attributes: {
      ApproximateReceiveCount: String(stored.receiveCount),
      SentTimestamp: String(stored.sentAt),
      ApproximateFirstReceiveTimestamp: String(stored.firstReceivedAt ?? stored.sentAt),
      ...(stored.groupId === undefined ? {} : { MessageGroupId: stored.groupId }),
      ...(stored.traceHeader === undefined ? {} : { AWSTraceHeader: stored.traceHeader }),
    },
  };
}
