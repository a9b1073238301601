import { appendFileSync } from 'node:fs';
import { Inject, Injectable } from '@nestjs/common';
import { SqsBatchHandler, SqsHandler } from '@requeue/nest';
import { ErrorType, NonRetryableError, RetryableError, UnrecoverableError } from '@requeue/retry';
import type { BatchContext, BatchItemResult, WorkerMessage } from '@requeue/sqs';
import { z } from 'zod';
import { TryCounter } from './try-counter.js';
import { APP_CONFIG } from '../tokens.js';
import type { WorkerConfig } from '../config.js';

export const SIMULATED_OUTCOMES = ['ok', 'transient', 'rate_limit', 'quota', 'permanent', 'unrecoverable', 'throw_non_error', 'hang', 'crash'] as const;

const simulationBody = z.object({
  id: z.string().min(1).max(256),
  simulate: z
    .strictObject({
      outcome: z.enum(SIMULATED_OUTCOMES),
      failTimes: z.number().int().min(0).max(1000).optional(),
      retryAfterMs: z.number().int().min(0).max(43_200_000).optional(),
      durationMs: z.number().int().min(0).max(43_200_000).optional(),
    })
    .optional(),
});

export type SimulationBody = z.infer<typeof simulationBody>;

/**
 * The demo, test and benchmark handler (docs/contracts.md, 4.1). With `failTimes` n, tries
 * 1..n fail with the outcome and try n+1 succeeds (a try is an attempt, or a call that
 * backpressure deferred without one: see TryCounter); without it, the outcome happens
 * on every attempt. Each success appends a line to SIMULATION_LEDGER, synchronously and
 * before the message is deleted, so a crash can duplicate a ledger line but never lose one;
 * each run's start appends one to SIMULATION_STARTS, so a run cut short shows.
 */
@Injectable()
export class SimulationHandler {
  private readonly tries = new TryCounter();

  constructor(@Inject(APP_CONFIG) private readonly config: WorkerConfig) {}

  /** The body checked by the engine against the schema: a malformed one is dead-lettered as VALIDATION without a call. */
  @SqsHandler('simulation', { schema: simulationBody })
  async handle(message: WorkerMessage<SimulationBody>): Promise<void> {
    await this.simulate(message);
  }

  /**
   * The batch form, for end-to-end checks of batch handlers: with SIMULATION_BULK_SINK_MS, one
   * bulk call for the batch first; then each message's `simulate` decides its own result, run side by side. When the batch's signal aborts (one of its
   * messages timed out, or shutdown), what finished keeps its result and the rest fail
   * with the signal's reason: a hanging message does not make its batch-mates wait past it.
   */
  @SqsBatchHandler('simulation-batch', { schema: simulationBody })
  async handleBatch(messages: ReadonlyArray<WorkerMessage<SimulationBody>>, { signal }: BatchContext): Promise<BatchItemResult[]> {
    const stopped = abortedBy(signal);
    const sink = this.config.simulationBulkSink;
    if (sink) await workFor(sink.callMs + sink.itemMs * messages.length, signal);
    return Promise.all(
      messages.map((message) =>
        Promise.race([this.simulate(message), stopped]).then(
          (): BatchItemResult => ({ messageId: message.messageId, ok: true }),
          (error: unknown): BatchItemResult => ({ messageId: message.messageId, ok: false, error }),
        ),
      ),
    );
  }

  /**
   * The same, trusting the body: the benchmark's baseline for what validation costs
   * (`npm run bench`, "body schema"). A malformed body fails in the handler instead.
   */
  @SqsHandler('simulation-unchecked')
  async handleUnchecked(message: WorkerMessage): Promise<void> {
    await this.simulate(message as WorkerMessage<SimulationBody>);
  }

  private async simulate(message: WorkerMessage<SimulationBody>): Promise<void> {
    const { id, simulate } = message.body;
    if (this.config.simulationStarts)
      appendFileSync(this.config.simulationStarts, `${JSON.stringify({ id, attempt: message.attempt, messageId: message.messageId, at: Date.now() })}\n`);
    if (simulate?.durationMs) await workFor(simulate.durationMs, message.signal);
    const outcome = simulate?.outcome ?? 'ok';
    const failing = outcome !== 'ok' && (simulate?.failTimes === undefined || this.tries.next(message) <= simulate.failTimes);
    if (failing) await fail(outcome, simulate?.retryAfterMs);
    if (this.config.simulationLedger) {
      // originalMessageId (beyond the contract's four fields) ties retries' log lines to this id.
      const line = { id, attempt: message.attempt, messageId: message.messageId, at: Date.now(), originalMessageId: message.idempotencyKey };
      appendFileSync(this.config.simulationLedger, `${JSON.stringify(line)}\n`);
    }
  }
}

/** Rejects with the signal's reason once it aborts. */
function abortedBy(signal: AbortSignal): Promise<never> {
  return new Promise<never>((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}

function workFor(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}

async function fail(outcome: (typeof SIMULATED_OUTCOMES)[number], retryAfterMs: number | undefined): Promise<never> {
  switch (outcome) {
    case 'transient':
      throw new RetryableError('simulated transient failure', { errorType: ErrorType.TEMPORARY });
    case 'rate_limit':
      throw new RetryableError('simulated rate limit', { errorType: ErrorType.RATE_LIMIT, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) });
    case 'quota':
      throw new RetryableError('simulated quota exhaustion', { errorType: ErrorType.QUOTA_EXCEEDED, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) });
    case 'permanent':
      throw new NonRetryableError('simulated permanent failure');
    case 'unrecoverable':
      throw new UnrecoverableError('simulated unrecoverable failure');
    case 'throw_non_error':
      throw 'simulated non-Error throw';
    case 'hang':
      // Ignores its abort signal on purpose: the worker's timeout must cope.
      return new Promise<never>(() => undefined);
    case 'crash':
      // A poison pill: the process dies mid-message, as with an OOM kill.
      process.kill(process.pid, 'SIGKILL');
      return new Promise<never>(() => undefined);
    case 'ok':
      throw new Error('unreachable: ok never fails');
  }
}
