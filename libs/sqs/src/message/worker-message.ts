/** What a handler receives. */
export interface WorkerMessage<Body = unknown> {
  /** The payload, parsed as JSON when it is JSON, else the string. SNS envelopes are already unwrapped. */
  body: Body;
  /** The payload as published. */
  rawBody: string;
  /** The publisher's attributes (SNS ones included), as strings; binary values in base64. */
  attributes: Readonly<Record<string, string>>;
  /** 1 on first delivery; counts every attempt across retries. */
  attempt: number;
  /** Epoch ms of the first receive. */
  firstReceivedAt: number;
  /**
   * Epoch ms SQS took this delivery (its `SentTimestamp`; a retry copy's is when the copy was
   * sent, before its backoff). The handler's start minus this is the message's dwell.
   */
  sentAt: number;
  /** The original message id, stable across retries: use it to make side effects idempotent. */
  idempotencyKey: string;
  /** This delivery's SQS message id (a retry copy has a new one). */
  messageId: string;
  /**
   * The id SNS gave the message when it was published to a topic (what the publisher's
   * `Publish` returned), the same on every retry; absent for a message sent to the queue
   * directly or delivered raw.
   */
  snsMessageId?: string;
  /** SQS's `ApproximateReceiveCount` for this delivery. */
  receiveCount: number;
  /** Aborted on handler timeout and on shutdown past the drain timeout. */
  signal: AbortSignal;
}
