import { ReceiveMessageCommand, type Message, type SQSClient } from '@aws-sdk/client-sqs';
import { cappedExponentialMs, redactUrlCredentials, type Random } from '@requeue/retry/engine';
import type { InFlightLimit } from './in-flight-limit.js';
import type { WorkerLogger } from '../events/logger.js';
import { ReceivePacer } from './receive-pacer.js';
import { sleep } from '../time/sleep.js';
import type { WorkerTimers } from '../time/timers.js';

export interface PollerOptions {
  sqs: SQSClient;
  queueUrl: string;
  /** Slots for messages held: running and prefetched. A receive reserves one per message it asks for. */
  limit: InFlightLimit;
  /**
   * Of the free slots, how many are beyond the handlers' own to leave unused now: all of
   * them (prefetch and lookahead) while a dependency is paused or its circuit open, so
   * deferred work is not pulled in.
   */
  withheld: () => number;
  waitTimeSeconds: number;
  /** Messages asked for per receive (SQS allows at most 10). */
  receiveBatchSize: number;
  /** Receive loops: the most receive calls under way at once. */
  concurrency: number;
  /**
   * Once a slot is free, how long a receive may wait for a full batch of free slots:
   * handlers finish one by one, and a receive per freed slot would cost a call per message.
   */
  gatherMs: number;
  backoff: { initialMs: number; maxMs: number };
  logger: WorkerLogger;
  /** A receive failed; the loop backs off for `retryInMs`. */
  onPollError: (event: { error: unknown; consecutiveFailures: number; retryInMs: number }) => void;
  now: () => number;
  timers: WorkerTimers;
  random: Random;
  /** A receive that brought messages took this long. */
  receiveTook: (ms: number) => void;
  /** Each received message already holds a slot; the callee releases it when done. */
  onMessage: (message: Message) => void;
  /** Until when receiving would be pointless (every dependency blocked), or undefined. */
  blockedUntil: () => number | undefined;
}

/**
 * A blocked poller still wakes this often: liveness never sees a long cool-down as a hang,
 * and a block lifted early (a fleet's peer saw the dependency recover) is noticed within a second.
 */
const MAX_BLOCKED_SLEEP_MS = 1000;
/** Why a wait for a full batch of free slots ended: its time was up, or the poller stopped. */
const GATHERED = new Error('gathering ended');

/**
 * Long-polls the queue with several receive loops, each of which reserves free slots
 * before it asks SQS for messages, so the worker never holds more messages than it may:
 * those running, at most `prefetch` more waiting with a message already in hand when a
 * handler finishes, and what the handlers will start while a receive is under way (the
 * slots' lookahead, which `receiveTook` feeds). While receives bring messages every loop
 * may receive; after an empty one, a single long poll waits for work. Errors back off
 * exponentially and never end a loop.
 */
export class Poller {
  /** Liveness: last time any loop made progress (a call returned or a backoff ended). */
  lastActivityAt: number;
  /** Readiness: last time a receive call returned, with or without messages, or failed. */
  lastReceiveAt: number;
  consecutiveFailures = 0;
  private stopping = false;
  /** Ends backoff sleeps and free-slot waits at stop; never aborts a receive. */
  private readonly abort = new AbortController();
  private loops: Promise<void>[] = [];
  private readonly pacer: ReceivePacer;
  /** Settles once the loop whose turn it is to reserve slots has them. */
  private reserveTurn: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: PollerOptions) {
    this.pacer = new ReceivePacer(options.concurrency);
    this.lastActivityAt = options.now();
    this.lastReceiveAt = this.lastActivityAt;
  }

  start(): void {
    this.loops = Array.from({ length: this.options.concurrency }, () => this.loop());
  }

  /**
   * Stops receiving. A receive under way is not aborted: an abandoned long poll can still
   * take messages on the server side and hide them until their visibility timeout, so
   * each loop ends when its current receive returns (at most `waitTimeSeconds`). What
   * such a receive returns is still handed to `onMessage`, which releases it.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    this.abort.abort();
    await Promise.all(this.loops);
  }

  /** Ready: started, and no receive has failed since the last success. */
  get receiving(): boolean {
    return this.loops.length > 0 && this.consecutiveFailures === 0;
  }

  private async loop(): Promise<void> {
    const { limit, sqs, queueUrl } = this.options;
    while (!this.stopping) {
      const blockedUntil = this.options.blockedUntil();
      if (blockedUntil !== undefined) {
        await sleep(Math.min(MAX_BLOCKED_SLEEP_MS, blockedUntil - this.options.now()), this.abort.signal, this.options.timers);
        this.lastActivityAt = this.options.now();
        continue;
      }
      if (!(await this.pacer.turn(this.abort.signal))) break;
      const slots = await this.reserveInTurn();
      if (slots === 0) {
        this.pacer.ended(0);
        continue;
      }
      let messages: Message[];
      const sentAt = this.options.now();
      try {
        const response = await sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: queueUrl,
            MaxNumberOfMessages: slots,
            WaitTimeSeconds: this.options.waitTimeSeconds,
            MessageAttributeNames: ['All'],
            MessageSystemAttributeNames: ['ApproximateReceiveCount', 'ApproximateFirstReceiveTimestamp', 'SentTimestamp', 'MessageGroupId', 'AWSTraceHeader'],
          }),
        );
        messages = response.Messages ?? [];
      } catch (error) {
        this.pacer.ended(0);
        this.lastReceiveAt = this.options.now();
        limit.release(slots);
        if (this.stopping) break;
        await this.backOff(error);
        continue;
      }
      this.pacer.ended(messages.length);
      this.recordSuccess();
      if (messages.length > 0) this.options.receiveTook(this.lastReceiveAt - sentAt);
      limit.release(slots - messages.length);
      for (const message of messages) this.options.onMessage(message);
    }
  }

  /**
   * One loop at a time waits for slots, and the others queue behind it. Loops gathering
   * side by side would share the slots as they free up, and each would end its wait with
   * a batch of one or two: a receive call for a message or two.
   */
  private reserveInTurn(): Promise<number> {
    const reserved = this.reserveTurn.then(() => this.reserveSlots());
    // A wait that failed must not hold up the loops behind it.
    this.reserveTurn = reserved.catch(() => undefined);
    return reserved;
  }

  /** Waits for free slots (a full batch for up to `gatherMs`) and reserves them; 0 at stop. */
  private async reserveSlots(): Promise<number> {
    const { limit } = this.options;
    for (;;) {
      const withheld = this.options.withheld();
      // With prefetch withheld, only a slot beyond it will do.
      await limit.whenFree(this.abort.signal, withheld + 1);
      await this.gatherSlots(withheld);
      if (this.stopping) return 0;
      const usable = Math.min(this.options.receiveBatchSize, limit.free - this.options.withheld());
      if (usable > 0) return limit.reserve(usable);
    }
  }

  /** Waits up to `gatherMs` for a full batch of free slots beyond the withheld ones; ends early at stop. */
  private async gatherSlots(withheld: number): Promise<void> {
    const { limit, receiveBatchSize, gatherMs } = this.options;
    const wanted = withheld + Math.min(receiveBatchSize, limit.capacity - withheld);
    if (limit.free >= wanted || gatherMs === 0 || this.stopping) return;
    const gathering = new AbortController();
    // A shared reason: `abort()` without one builds a DOMException, with its stack, per wait.
    const end = () => gathering.abort(GATHERED);
    const cancel = this.options.timers.after(gatherMs, end);
    this.abort.signal.addEventListener('abort', end, { once: true });
    await limit.whenFree(gathering.signal, wanted);
    cancel();
    this.abort.signal.removeEventListener('abort', end);
  }

  private recordSuccess(): void {
    const now = this.options.now();
    if (this.consecutiveFailures > 0) {
      this.options.logger.info(
        { queueUrl: redactUrlCredentials(this.options.queueUrl), failures: this.consecutiveFailures },
        'receiving again after poll failures',
      );
    }
    this.consecutiveFailures = 0;
    this.lastActivityAt = now;
    this.lastReceiveAt = now;
  }

  private async backOff(error: unknown): Promise<void> {
    this.consecutiveFailures++;
    const { initialMs, maxMs } = this.options.backoff;
    const ceiling = cappedExponentialMs(initialMs, 2, this.consecutiveFailures - 1, maxMs);
    // Equal jitter: several loops (and several workers) must not retry in lockstep.
    const delayMs = ceiling / 2 + (this.options.random() * ceiling) / 2;
    this.options.onPollError({ error, consecutiveFailures: this.consecutiveFailures, retryInMs: delayMs });
    await sleep(delayMs, this.abort.signal, this.options.timers);
    this.lastActivityAt = this.options.now();
  }
}
