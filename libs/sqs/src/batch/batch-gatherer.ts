import type { SpanContext } from '@opentelemetry/api';
import type { WorkerLogger } from '../events/logger.js';
import type { WorkerMessage } from '../message/worker-message.js';
import type { CancelTimer, WorkerTimers } from '../time/timers.js';
import type { MessageTracer } from '../tracing/message-tracer.js';
import type { ProcessTrace } from '../tracing/process-trace.js';
import { settleBatchItems, type BatchMember } from './batch-results.js';
import { firstAbortOf } from './first-abort.js';
import type { ResolvedBatch } from './batch-options.js';

/** What the gatherer needs from the consumer it serves. */
export interface GathererWiring {
  timers: WorkerTimers;
  logger: WorkerLogger;
  /** Undefined when tracing is off. */
  tracer: MessageTracer | undefined;
  /** Whether a message not yet received may still join a batch: a free handler slot on a running worker; never within a Lambda event. */
  roomForMore: () => boolean;
}

/**
 * Turns each message's call of its handler into a place in a batch. Every message still
 * goes through its own pipeline (decode, schema, dependency gate, idempotency claim,
 * timeout, classification, settle); only the handler call is shared. A batch starts when
 * it is full, when no other message can join (none is on its way to the handler and no
 * handler slot is free), or `windowMs` after its first message.
 */
export class BatchGatherer {
  private pending: BatchMember[] = [];
  /** Messages past decode and not yet at the handler: a batch about to start waits for them. */
  private approaching = 0;
  private cancelWindow: CancelTimer | undefined;
  private checkQueued = false;

  constructor(
    private readonly batch: ResolvedBatch,
    private readonly wiring: GathererWiring,
  ) {}

  /** A message began the steps before its handler (schema, gate, claim). */
  approach(): void {
    this.approaching += 1;
  }

  /** It ended before its handler (a duplicate, a closed gate, an invalid body): the waiting batch may be complete without it. */
  turnedAway(): void {
    this.approaching -= 1;
    this.startIfComplete();
  }

  /** The message's handler call: settles when its batch's result names it. */
  handle(message: WorkerMessage, trace: ProcessTrace | undefined): Promise<void> {
    this.approaching -= 1;
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ message, link: trace?.carried, resolve, reject });
      if (this.pending.length === 1) this.cancelWindow = this.wiring.timers.after(this.batch.windowMs, () => this.start());
      this.startIfComplete();
    });
  }

  private startIfComplete(): void {
    if (this.pending.length === 0) return;
    if (this.pending.length >= this.batch.size) return this.start();
    // Checked once the current turn is done: the messages of one receive (or one Lambda
    // event) enter the pipeline one after another in it, and may reach the handler at once.
    if (this.checkQueued) return;
    this.checkQueued = true;
    queueMicrotask(() => {
      this.checkQueued = false;
      if (this.pending.length > 0 && this.approaching === 0 && !this.wiring.roomForMore()) this.start();
    });
  }

  private start(): void {
    this.cancelWindow?.();
    this.cancelWindow = undefined;
    // A message whose signal is aborted has its outcome already (timed out, or stopped).
    const members = this.pending.filter((member) => !member.message.signal.aborted);
    this.pending = [];
    if (members.length > 0) void this.run(members);
  }

  private async run(members: BatchMember[]): Promise<void> {
    const messages = members.map((member) => member.message);
    const aborts = firstAbortOf(messages.map((message) => message.signal));
    const call = () => this.batch.handler(messages, { signal: aborts.signal });
    const { tracer } = this.wiring;
    try {
      const links = members.map((member) => member.link).filter((link): link is SpanContext => link !== undefined);
      const results = await (tracer ? tracer.runBatch(links, messages.length, call) : call());
      settleBatchItems(members, results, this.wiring.logger);
    } catch (error) {
      for (const member of members) member.reject(error);
    } finally {
      aborts.release();
    }
  }
}
