import type { TrafficProfile } from './profile.js';

/** How the simulated dependency answers one call. */
export type CallAnswer = 'ok' | 'unavailable' | 'never' | 'rate-limited' | 'transient' | 'permanent';

/**
 * The downstream service the simulated handler calls: down during the profile's outages
 * (503, or no answer at all), answering 429 with `Retry-After` beyond its capacity in any
 * one second, 422 for the messages that fail permanently, and now and then a one-off 500.
 */
export class SimulatedDependency {
  /** The most calls it took in any one second. */
  peakPerSecond = 0;
  private second = Number.NEGATIVE_INFINITY;
  private inSecond = 0;

  constructor(
    private readonly profile: Pick<TrafficProfile, 'dependency' | 'failures'>,
    private readonly startMs: number,
    private readonly random: () => number,
  ) {}

  answer(nowMs: number, failsPermanently: boolean): CallAnswer {
    this.countCall(nowMs);
    const outage = this.outageAt(nowMs);
    if (outage) return outage.answer === '503' ? 'unavailable' : 'never';
    const { capacityPerSecond } = this.profile.dependency;
    if (capacityPerSecond !== undefined && this.inSecond > capacityPerSecond) return 'rate-limited';
    if (failsPermanently) return 'permanent';
    return this.random() < this.profile.failures.transient ? 'transient' : 'ok';
  }

  private countCall(nowMs: number): void {
    const second = Math.floor((nowMs - this.startMs) / 1000);
    if (second !== this.second) {
      this.second = second;
      this.inSecond = 0;
    }
    this.inSecond++;
    this.peakPerSecond = Math.max(this.peakPerSecond, this.inSecond);
  }

  private outageAt(nowMs: number) {
    const at = (nowMs - this.startMs) / 1000;
    return this.profile.dependency.outages.find((outage) => at >= outage.startSeconds && at < outage.startSeconds + outage.durationSeconds);
  }
}

/**
 * The error a handler throws for each failing answer, as an HTTP client would report it.
 * Without a stack trace: nothing reads one, and capturing it on every failing call of a
 * simulated outage was 2% of the run.
 */
export function answerError(answer: Exclude<CallAnswer, 'ok' | 'never'>, retryAfterSeconds: number): Error {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return errorFor(answer, retryAfterSeconds);
  } finally {
    Error.stackTraceLimit = limit;
  }
}

function errorFor(answer: Exclude<CallAnswer, 'ok' | 'never'>, retryAfterSeconds: number): Error {
  switch (answer) {
    case 'unavailable':
      return Object.assign(new Error('503 Service Unavailable'), { statusCode: 503 });
    case 'transient':
      return Object.assign(new Error('500 Internal Server Error'), { statusCode: 500 });
    case 'permanent':
      return Object.assign(new Error('422 Unprocessable Entity'), { statusCode: 422 });
    case 'rate-limited':
      return Object.assign(new Error('429 Too Many Requests'), { statusCode: 429, headers: { 'retry-after': String(retryAfterSeconds) } });
  }
}
