import { DeleteMessageBatchCommand, ReceiveMessageCommand, type ReceiveMessageResult, type SQSClient } from '@aws-sdk/client-sqs';

/** A worker's SQS client that can die with its process. */
export interface CrashableSqs {
  client: SQSClient;
  /** The process is gone: every call it had under way or makes later never answers, as a killed process's sockets would not. */
  crash(): void;
  /**
   * The bodies it holds, once per receive of each: received (a long poll under way at the
   * crash included, which SQS still answers and counts), no delete asked for. SQS hands
   * them out again once their visibility ends.
   */
  held(): string[];
}

/** Wraps a worker's client to crash it at any moment; only the worker's own calls pass through it. */
export function crashableSqs(sqs: SQSClient): CrashableSqs {
  // By SQS message id: a message received again under a new handle is deleted by either.
  const held = new Map<string, string[]>();
  const idOfHandle = new Map<string, string>();
  let dead = false;
  const never = new Promise<never>(() => {});
  const send = async (command: unknown): Promise<unknown> => {
    if (dead) return never;
    // A delete under way when the process dies may still take effect: the message is no
    // longer held from the moment it is asked for.
    if (command instanceof DeleteMessageBatchCommand)
      for (const { ReceiptHandle = '' } of command.input.Entries ?? []) held.delete(idOfHandle.get(ReceiptHandle) ?? '');
    const answer = await sqs.send(command as never);
    if (command instanceof ReceiveMessageCommand)
      for (const { ReceiptHandle = '', MessageId = '', Body = '' } of (answer as ReceiveMessageResult).Messages ?? []) {
        held.set(MessageId, [...(held.get(MessageId) ?? []), Body]);
        idOfHandle.set(ReceiptHandle, MessageId);
      }
    return dead ? never : answer;
  };
  return {
    client: { send } as unknown as SQSClient,
    crash() {
      dead = true;
    },
    held: () => [...held.values()].flat(),
  };
}
