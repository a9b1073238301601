import { ChangeMessageVisibilityBatchCommand, ReceiveMessageCommand, type ReceiveMessageResult, type SQSClient } from '@aws-sdk/client-sqs';
import type { Random } from '@requeue/retry/engine';
import type { FaultRates } from './scenario.js';

/** What the fault layer did, by kind: a run reports it beside its verdict. */
export interface FaultCounts {
  refused: number;
  answerLost: number;
  duplicate: number;
}

/** SQS's answers to a call it refused before acting: throttling or a server error, as the SDK throws them. */
function refusal(random: Random, call: string): Error {
  return random() < 0.5
    ? Object.assign(new Error(`${call}: Rate exceeded`), { name: 'ThrottlingException', $fault: 'client', $metadata: { httpStatusCode: 400 } })
    : Object.assign(new Error(`${call}: We encountered an internal error`), { name: 'InternalError', $fault: 'server', $metadata: { httpStatusCode: 500 } });
}

/**
 * The simulated SQS as the network makes it: any call but the start's `GetQueueAttributes`
 * may be refused before it acts, or act and lose its answer (the caller sees a reset
 * socket); a received message may be received again while its first delivery runs, as a
 * standard queue's at-least-once delivery allows. Every draw comes from the run's seed.
 */
export function faultySqs(sqs: SQSClient, rates: FaultRates, random: Random, counts: FaultCounts): SQSClient {
  const send = async (command: { constructor: { name: string } }): Promise<unknown> => {
    const call = command.constructor.name.replace(/Command$/, '');
    if (call === 'GetQueueAttributes') return sqs.send(command as never);
    if (random() < rates.refused) {
      counts.refused++;
      throw refusal(random, call);
    }
    const answer = await sqs.send(command as never);
    if (command instanceof ReceiveMessageCommand) await duplicate(answer as ReceiveMessageResult, command.input.QueueUrl ?? '');
    if (random() < rates.answerLost) {
      counts.answerLost++;
      throw Object.assign(new Error(`${call}: socket hang up`), { name: 'Error', code: 'ECONNRESET' });
    }
    return answer;
  };
  /** Makes a received message visible again at once: the next receive delivers it a second time. */
  const duplicate = async ({ Messages = [] }: ReceiveMessageResult, queueUrl: string) => {
    const again = Messages.filter(() => random() < rates.duplicate);
    if (again.length === 0) return;
    counts.duplicate += again.length;
    const entries = again.map((message, i) => ({ Id: String(i), ReceiptHandle: message.ReceiptHandle ?? '', VisibilityTimeout: 0 }));
    await sqs.send(new ChangeMessageVisibilityBatchCommand({ QueueUrl: queueUrl, Entries: entries }));
  };
  return { send } as unknown as SQSClient;
}
