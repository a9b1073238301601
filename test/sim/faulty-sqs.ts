import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageBatchCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  type ReceiveMessageResult,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { Random } from '@requeue/retry/engine';
import type { FaultRates } from './scenario.js';

/** What the fault layer did, by kind: a run reports it beside its verdict. */
export interface FaultCounts {
  refused: number;
  answerLost: number;
  duplicate: number;
  /** Batch entries answered failed while the rest of their batch took effect. */
  partial: number;
  /**
   * The bodies SQS itself made two of: a message delivered twice at once, or a send that
   * took effect but lost its answer (the SDK sends it again, or the engine falls back
   * with the copy already out). Without idempotency each may end twice, at-least-once.
   */
  forked: Set<string>;
  /** Receives of each body whose answer was lost: SQS counted them, no handler saw them. */
  lostReceives: Map<string, number>;
}

/** SQS's answers to a call it refused before acting: throttling or a server error, as the SDK throws them. */
function refusal(random: Random, call: string): Error {
  return random() < 0.5
    ? Object.assign(new Error(`${call}: Rate exceeded`), { name: 'ThrottlingException', $fault: 'client', $metadata: { httpStatusCode: 400 } })
    : Object.assign(new Error(`${call}: We encountered an internal error`), { name: 'InternalError', $fault: 'server', $metadata: { httpStatusCode: 500 } });
}

/** Tries per call, as the SDK's standard retry strategy makes them before the caller sees an error. */
const SDK_TRIES = 3;

/**
 * The simulated SQS as the network makes it, under the SDK's own retries: each try of a
 * call (but the start's `GetQueueAttributes`) may be refused before it acts, or act and
 * lose its answer (a reset socket); the SDK tries again, up to three times, so a lost
 * answer can make a call take effect twice (a copy sent twice), and the engine sees an
 * error only when every try failed. A received message may be received again while its
 * first delivery runs, as a standard queue's at-least-once delivery allows (its first
 * receipt handle is then stale: a delete with it succeeds and deletes nothing, as on SQS).
 * A batch may act on some entries and answer the others failed. Every draw comes from the
 * run's seed.
 */
export function faultySqs(sqs: SQSClient, rates: FaultRates, random: Random, counts: FaultCounts): SQSClient {
  /** Each receipt handle's body, from the receives' answers. */
  const bodies = new Map<string, string>();
  /**
   * A visibility extension that failed lets the message's timeout run out while its
   * delivery is still held: SQS may deliver it again (a heartbeat's failure, a fork).
   */
  const lapsed = (command: unknown, entries: readonly object[]) => {
    if (!(command instanceof ChangeMessageVisibilityBatchCommand)) return;
    for (const entry of entries as Array<{ ReceiptHandle?: string; VisibilityTimeout?: number }>)
      if ((entry.VisibilityTimeout ?? 0) > 0) counts.forked.add(bodies.get(entry.ReceiptHandle ?? '') ?? '');
  };
  const attempt = async (command: { constructor: { name: string } }, call: string): Promise<unknown> => {
    if (random() < rates.refused) {
      counts.refused++;
      throw refusal(random, call);
    }
    const answer = isBatch(command) && random() < rates.partial ? await partially(command) : await sqs.send(command as never);
    if (command instanceof ReceiveMessageCommand) {
      for (const { ReceiptHandle = '', Body = '' } of (answer as ReceiveMessageResult).Messages ?? []) bodies.set(ReceiptHandle, Body);
      await duplicate(answer as ReceiveMessageResult, command.input.QueueUrl ?? '');
    }
    if (random() < rates.answerLost) {
      counts.answerLost++;
      for (const body of sentBodies(command)) counts.forked.add(body);
      if (command instanceof ReceiveMessageCommand)
        for (const { Body = '' } of (answer as ReceiveMessageResult).Messages ?? []) counts.lostReceives.set(Body, (counts.lostReceives.get(Body) ?? 0) + 1);
      throw Object.assign(new Error(`${call}: socket hang up`), { name: 'Error', code: 'ECONNRESET' });
    }
    return answer;
  };
  const send = async (command: { constructor: { name: string } }): Promise<unknown> => {
    const call = command.constructor.name.replace(/Command$/, '');
    if (call === 'GetQueueAttributes') return sqs.send(command as never);
    for (let tries = 1; ; tries++) {
      try {
        return await attempt(command, call);
      } catch (error) {
        if (tries < SDK_TRIES) continue;
        lapsed(command, (command as { input?: { Entries?: object[] } }).input?.Entries ?? []);
        throw error;
      }
    }
  };
  /**
   * A batch where SQS acts on some entries and lists the others in `Failed` (an internal
   * error, not the sender's fault): the SDK does not retry those, the caller must.
   */
  const partially = async (command: BatchCommand) => {
    const entries = command.input.Entries ?? [];
    const failed = entries.filter(() => random() < 0.5);
    counts.partial += failed.length;
    lapsed(command, failed);
    const kept = entries.filter((entry) => !failed.includes(entry));
    const Command = command.constructor as new (input: BatchCommand['input']) => BatchCommand;
    const answer = (kept.length > 0 ? await sqs.send(new Command({ ...command.input, Entries: kept } as never) as never) : {}) as {
      Successful?: unknown[];
      Failed?: unknown[];
    };
    const refusedEntries = failed.map((entry) => ({ Id: entry.Id, SenderFault: false, Code: 'InternalError', Message: 'We encountered an internal error' }));
    return { Successful: answer.Successful ?? [], Failed: [...(answer.Failed ?? []), ...refusedEntries] };
  };
  /** Makes a received message visible again at once: the next receive delivers it a second time. */
  const duplicate = async ({ Messages = [] }: ReceiveMessageResult, queueUrl: string) => {
    const again = Messages.filter(() => random() < rates.duplicate);
    if (again.length === 0) return;
    counts.duplicate += again.length;
    for (const message of again) counts.forked.add(message.Body ?? '');
    const entries = again.map((message, i) => ({ Id: String(i), ReceiptHandle: message.ReceiptHandle ?? '', VisibilityTimeout: 0 }));
    await sqs.send(new ChangeMessageVisibilityBatchCommand({ QueueUrl: queueUrl, Entries: entries }));
  };
  return { send } as unknown as SQSClient;
}

type BatchCommand = SendMessageBatchCommand | DeleteMessageBatchCommand | ChangeMessageVisibilityBatchCommand;

function isBatch(command: unknown): command is BatchCommand {
  return command instanceof SendMessageBatchCommand || command instanceof DeleteMessageBatchCommand || command instanceof ChangeMessageVisibilityBatchCommand;
}

function sentBodies(command: unknown): string[] {
  if (command instanceof SendMessageCommand) return [command.input.MessageBody ?? ''];
  if (command instanceof SendMessageBatchCommand) return (command.input.Entries ?? []).map((entry) => entry.MessageBody ?? '');
  return [];
}
