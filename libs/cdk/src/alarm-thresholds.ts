import { Duration, Token } from 'aws-cdk-lib';
import { InfraConfigError } from './errors.js';
import { atLeastZero } from './validation.js';

/** When each of `QueueMonitoring`'s alarms fires. Numbers may be tokens. */
export interface AlarmThresholdProps {
  /** @default 5000 visible messages */
  readonly queueDepthThreshold?: number;
  /** @default Duration.minutes(15) */
  readonly oldestMessageAgeThreshold?: Duration;
  /**
   * Alarm when (retried + dead-lettered) / received, per minute, is over this fraction.
   * @default 0.3
   */
  readonly errorRateThreshold?: number;
  /** @default 0: any message in the DLQ */
  readonly deadLetterThreshold?: number;
  /** @default 0: any notification SNS failed to deliver */
  readonly failedNotificationsThreshold?: number;
  /**
   * Alarm when more messages than this ran out of attempts in a minute
   * (`MessagesDeadLettered` with `Reason=max-attempts`): retrying did not help them.
   * @default 0: any exhausted message
   */
  readonly exhaustedThreshold?: number;
  /**
   * Alarm when more messages than this fail on their first attempt in a minute
   * (`FirstFailures`): a new error pattern shows here before any retry or dead letter.
   * Off unless set, since the right number depends on the traffic.
   * @default - no first-failures alarm
   */
  readonly firstFailuresThreshold?: number;
  /**
   * Alarm when messages are visible yet none has been deleted for this long: the
   * workers are down, stuck, or cannot reach the queue.
   * @default Duration.minutes(10)
   */
  readonly stalledFor?: Duration;
  /**
   * Alarm when a tenant's message waited longer than this between its send and its
   * handler's start (`WorstTenantDwell`, written by workers with `tenants` on): one tenant
   * is being starved while the queue as a whole may look healthy. Off unless set.
   * @default - no worst-tenant alarm
   */
  readonly worstTenantDwellThreshold?: Duration;
}

export interface Thresholds {
  queueDepth: number;
  deadLetters: number;
  oldestMessageAgeSeconds: number;
  errorRate: number;
  failedNotifications: number;
  stalledMinutes: number;
  exhausted: number;
  firstFailures: number | undefined;
  worstTenantDwellMs: number | undefined;
}

export function resolveThresholds(props: AlarmThresholdProps): Thresholds {
  const errorRate = atLeastZero('errorRateThreshold', props.errorRateThreshold ?? 0.3);
  if (!Token.isUnresolved(errorRate) && errorRate >= 1)
    throw new InfraConfigError('errorRateThreshold', `is a fraction below 1 (0.3 is 30%), got ${errorRate}`);
  const stalledMinutes = (props.stalledFor ?? Duration.minutes(10)).toMinutes({ integral: false });
  if (!Token.isUnresolved(stalledMinutes) && (!Number.isInteger(stalledMinutes) || stalledMinutes < 1 || stalledMinutes > 1440)) {
    throw new InfraConfigError('stalledFor', `must be whole minutes from 1 to 1440, got ${stalledMinutes}`);
  }
  return {
    queueDepth: atLeastZero('queueDepthThreshold', props.queueDepthThreshold ?? 5000),
    deadLetters: atLeastZero('deadLetterThreshold', props.deadLetterThreshold ?? 0),
    oldestMessageAgeSeconds: atLeastZero('oldestMessageAgeThreshold', (props.oldestMessageAgeThreshold ?? Duration.minutes(15)).toSeconds()),
    errorRate,
    failedNotifications: atLeastZero('failedNotificationsThreshold', props.failedNotificationsThreshold ?? 0),
    stalledMinutes,
    exhausted: atLeastZero('exhaustedThreshold', props.exhaustedThreshold ?? 0),
    firstFailures: props.firstFailuresThreshold === undefined ? undefined : atLeastZero('firstFailuresThreshold', props.firstFailuresThreshold),
    worstTenantDwellMs:
      props.worstTenantDwellThreshold === undefined ? undefined : atLeastZero('worstTenantDwellThreshold', props.worstTenantDwellThreshold.toMilliseconds()),
  };
}
