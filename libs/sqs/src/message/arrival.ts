import type { Message } from '@aws-sdk/client-sqs';
import type { MessageSlot } from '../receive/message-slots.js';
import type { MessageAttributes } from './message-attributes.js';
import { unwrapSnsEnvelope, type Unwrapped } from './sns-envelope.js';

/** The handler's `body`: parsed JSON when the payload is JSON, else the string. */
export function parseBody(payload: string): unknown {
  try {
    return JSON.parse(payload);
  } catch {
    return payload;
  }
}

/**
 * A message as it arrived, made once when it is received and handed down the pipeline:
 * its SNS envelope is unwrapped and its body parsed at most once, by whichever stage asks
 * first (the tenant reader at admission, the decode when the message starts), and it
 * carries the running slot the message was admitted to.
 */
export class Arrival {
  private envelope: Unwrapped | undefined;
  private parsed: { payload: string; body: unknown } | undefined;

  /**
   * Its running slot, once the worker admitted it (none on Lambda): handed on when its
   * handler is done, parked while it waits in the worker.
   */
  slot: Pick<MessageSlot, 'handOff' | 'park' | 'unpark'> | undefined;

  constructor(readonly message: Message) {}

  /** The SNS envelope taken off, with the attributes as SQS delivered them. */
  get unwrapped(): Unwrapped {
    this.envelope ??= unwrapSnsEnvelope(this.message.Body ?? '', (this.message.MessageAttributes ?? {}) as MessageAttributes);
    return this.envelope;
  }

  /** The body of `payload` (what the envelope carried, or the SQS body itself), parsed once. */
  body(payload: string): unknown {
    if (this.parsed?.payload !== payload) this.parsed = { payload, body: parseBody(payload) };
    return this.parsed.body;
  }
}

/** At the redrive's count: its next receive would move it to the DLQ unrun, without a reason. */
export function atReceiveLimit(message: Message, maxReceiveCount: number | undefined): boolean {
  return maxReceiveCount !== undefined && Number(message.Attributes?.ApproximateReceiveCount) >= maxReceiveCount;
}
