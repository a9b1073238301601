import { Aws, Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as ecs from 'aws-cdk-lib/aws-ecs';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { allowAlarmsToPublish, createAlarmTopic } from './alarm-topic.js';
import { resolveThresholds, type AlarmThresholdProps, type Thresholds } from './alarm-thresholds.js';
import { consoleUrl } from './console-url.js';
import { buildDashboard } from './queue-dashboard.js';
import { workerMetrics, type WorkerMetrics } from './worker-metrics.js';
import { DEFAULT_METRICS_NAMESPACE } from './worker-settings.js';

const MINUTE = Duration.minutes(1);

/**
 * What `QueueMonitoring` watches and where its alarms go; the thresholds default to those in
 * docs/infra.md.
 */
export interface QueueMonitoringProps extends AlarmThresholdProps {
  /** The queue the worker consumes: any queue, yours or `RetryingQueue`'s. */
  readonly queue: sqs.IQueue;
  /** Where the worker dead-letters. */
  readonly deadLetterQueue: sqs.IQueue;
  /**
   * The topic that feeds the queue, for the failed-notifications alarm.
   * @default - no topic alarm (the queue is fed some other way)
   */
  readonly topic?: sns.ITopic;
  /**
   * The worker service, for running tasks, CPU and memory. Running tasks come from
   * Container Insights, so enable it on the service's cluster.
   * @default - no service widgets (the worker runs elsewhere)
   */
  readonly service?: ecs.BaseService;
  /**
   * The service's Spot interruptions (`QueueWorkerService.spotInterruptions`), graphed
   * beside its running tasks.
   * @default - no Spot widget
   */
  readonly spotInterruptions?: cloudwatch.IMetric;
  /**
   * The namespace the worker writes its EMF metrics to (`METRICS_NAMESPACE`).
   * @default 'requeue'
   */
  readonly metricsNamespace?: string;
  /**
   * The topic alarms notify. Its policy gets a statement letting CloudWatch publish this
   * construct's alarms; an imported topic's owner must allow that themselves.
   * @default - a new topic, encrypted with a rotating key this account's CloudWatch alarms may use
   */
  readonly alarmTopic?: sns.ITopic;
  /**
   * Alarms notify their topic. With `false` they still change state and show on the
   * dashboard, but send nothing.
   * @default true
   */
  readonly alarmActionsEnabled?: boolean;
  /**
   * An address subscribed to the alarm topic. It must confirm the subscription email.
   * @default - no subscription; subscribe to the `AlarmTopicArn` output yourself
   */
  readonly alarmEmail?: string;
  /** @default - a name CloudFormation generates */
  readonly dashboardName?: string;
  /**
   * The worker runs with tenants on (`WORKER_TENANT_KEY`): the dashboard graphs the
   * worst-served tenants' dwell and handlers.
   * @default - only when `worstTenantDwellThreshold` is set
   */
  readonly tenants?: boolean;
  /**
   * The worker's log group (`QueueWorkerService.logGroup`): the dashboard then tables this
   * queue's dead letters by cause, under the ids `requeue dlq triage` prints.
   * @default - no table
   */
  readonly workerLogGroup?: logs.ILogGroup;
  /**
   * The worker as a Lambda function (`QueueWorkerFunction.function`): the dashboard graphs
   * its invocations, errors, throttles, duration and concurrency.
   * @default - no function widgets (the worker runs elsewhere)
   */
  readonly workerFunction?: lambda.IFunction;
}

/**
 * The alarms an operator of a retrying queue needs, an encrypted SNS topic they notify,
 * and one dashboard showing where messages are: visible, in flight, delayed (waiting to
 * be retried) and dead-lettered.
 */
export class QueueMonitoring extends Construct {
  /** The topic every alarm notifies (and its OK). */
  readonly alarmTopic: sns.ITopic;
  /** The dashboard: where messages are, what fails, and the worker's own metrics. */
  readonly dashboard: cloudwatch.Dashboard;
  /** Each alarm, to add actions or read its ARN. */
  readonly alarms: {
    readonly queueDepth: cloudwatch.Alarm;
    readonly deadLetters: cloudwatch.Alarm;
    readonly oldestMessageAge: cloudwatch.Alarm;
    readonly errorRate: cloudwatch.Alarm;
    /** Only when `topic` is given. */
    readonly failedNotifications?: cloudwatch.Alarm;
    readonly stalled: cloudwatch.Alarm;
    readonly exhausted: cloudwatch.Alarm;
    /** Only when `firstFailuresThreshold` is set. */
    readonly firstFailures?: cloudwatch.Alarm;
    /** Only when `worstTenantDwellThreshold` is set. */
    readonly worstTenantDwell?: cloudwatch.Alarm;
  };

  /** The ARNs CloudWatch may publish to the alarm topic for: this construct's alarms and those given to `addAlarm`. */
  private readonly notifyingAlarms: cloudwatch.Alarm[] = [];

  constructor(scope: Construct, id: string, props: QueueMonitoringProps) {
    super(scope, id);
    const worker = workerMetrics(props.metricsNamespace ?? DEFAULT_METRICS_NAMESPACE, props.queue.queueName);
    this.alarmTopic = props.alarmTopic ?? createAlarmTopic(this);
    allowAlarmsToPublish(this.alarmTopic, () => this.notifyingAlarms.map((alarm) => alarm.alarmArn));
    if (props.alarmEmail) this.alarmTopic.addSubscription(new subscriptions.EmailSubscription(props.alarmEmail));
    this.alarms = this.buildAlarms(props, resolveThresholds(props), worker);
    const tenants = props.tenants ?? props.worstTenantDwellThreshold !== undefined;
    this.dashboard = buildDashboard(
      this,
      { ...props, tenants },
      worker,
      Object.values(this.alarms).filter((a) => a !== undefined),
    );
  }

  /**
   * Notifies the alarm topic when this alarm (one of your own) goes into and out of alarm,
   * and lets CloudWatch publish for it: the topic's policy admits only the alarms it names.
   */
  addAlarm(alarm: cloudwatch.Alarm): void {
    alarm.addAlarmAction(new actions.SnsAction(this.alarmTopic));
    alarm.addOkAction(new actions.SnsAction(this.alarmTopic));
    this.notifyingAlarms.push(alarm);
  }

  private alarm(
    props: QueueMonitoringProps,
    id: string,
    description: string,
    metric: cloudwatch.IMetric,
    threshold: number,
    evaluationPeriods = 1,
  ): cloudwatch.Alarm {
    const created = new cloudwatch.Alarm(this, id, {
      alarmDescription: description,
      metric,
      threshold,
      evaluationPeriods,
      datapointsToAlarm: evaluationPeriods,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      actionsEnabled: props.alarmActionsEnabled ?? true,
    });
    this.addAlarm(created);
    return created;
  }

  /** Created in the order the dashboard's alarm widget lists them. */
  private buildAlarms(props: QueueMonitoringProps, thresholds: Thresholds, worker: WorkerMetrics): QueueMonitoring['alarms'] {
    const backlog = this.backlogAlarms(props, thresholds, worker);
    return { ...backlog, ...this.failureAlarms(props, thresholds, worker) };
  }

  /** Where messages pile up: the queue's depth, the DLQ, the oldest message's age, the worst-served tenant's wait. */
  private backlogAlarms(props: QueueMonitoringProps, thresholds: Thresholds, worker: WorkerMetrics) {
    const alarm = (id: string, description: string, metric: cloudwatch.IMetric, threshold: number) => this.alarm(props, id, description, metric, threshold);
    const q = props.queue;
    const visible = q.metricApproximateNumberOfMessagesVisible({ period: MINUTE, statistic: 'Maximum' });
    return {
      queueDepth: alarm('QueueDepthAlarm', 'Visible messages waiting: the workers are not keeping up.', visible, thresholds.queueDepth),
      deadLetters: alarm(
        'DeadLetterAlarm',
        'Messages in the DLQ. Inspect them with `requeue dlq list`, then replay or discard.',
        props.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period: MINUTE, statistic: 'Maximum' }),
        thresholds.deadLetters,
      ),
      oldestMessageAge: alarm(
        'OldestMessageAgeAlarm',
        'The oldest message has waited too long: consumption is stalled or far behind.',
        q.metricApproximateAgeOfOldestMessage({ period: MINUTE, statistic: 'Maximum' }),
        thresholds.oldestMessageAgeSeconds,
      ),
      ...(thresholds.worstTenantDwellMs === undefined
        ? {}
        : {
            worstTenantDwell: alarm(
              'WorstTenantDwellAlarm',
              'A tenant\'s messages waited too long to start while others ran: see the "Tenants" graphs for which one, and its share of the handlers.',
              worker.worstTenantDwell,
              thresholds.worstTenantDwellMs,
            ),
          }),
    };
  }

  /** What fails: the error rate, undelivered notifications, a stall, exhausted retries, first failures. */
  private failureAlarms(props: QueueMonitoringProps, thresholds: Thresholds, worker: WorkerMetrics) {
    const alarm = (id: string, description: string, metric: cloudwatch.IMetric, threshold: number, evaluationPeriods = 1) =>
      this.alarm(props, id, description, metric, threshold, evaluationPeriods);
    const q = props.queue;
    const visible = q.metricApproximateNumberOfMessagesVisible({ period: MINUTE, statistic: 'Maximum' });
    return {
      errorRate: alarm(
        'ErrorRateAlarm',
        'More than the threshold of received messages are being retried or dead-lettered: a dependency is failing.',
        new cloudwatch.MathExpression({
          // Below 10 messages a minute one failure is a 10%+ swing: too noisy to page on.
          expression: 'IF(received >= 10, (FILL(retried, 0) + FILL(deadLettered, 0)) / received, 0)',
          usingMetrics: { received: worker.received, retried: worker.retried, deadLettered: worker.deadLettered },
          period: MINUTE,
          label: 'Error rate',
        }),
        thresholds.errorRate,
      ),
      ...(props.topic === undefined
        ? {}
        : {
            failedNotifications: alarm(
              'FailedNotificationsAlarm',
              'SNS failed to deliver notifications to the queue; they are in the undeliverable queue.',
              props.topic.metricNumberOfNotificationsFailed({ period: MINUTE, statistic: 'Sum' }),
              thresholds.failedNotifications,
            ),
          }),
      stalled: alarm(
        'StalledAlarm',
        'Messages are waiting and none has been consumed: the workers are down or cannot reach the queue.',
        new cloudwatch.MathExpression({
          expression: 'IF(visible > 0 AND FILL(deleted, 0) == 0, 1, 0)',
          usingMetrics: { visible, deleted: q.metricNumberOfMessagesDeleted({ period: MINUTE, statistic: 'Sum' }) },
          period: MINUTE,
          label: 'Backlog with no consumption',
        }),
        0,
        thresholds.stalledMinutes,
      ),
      exhausted: alarm(
        'ExhaustedAlarm',
        'Messages ran out of attempts and were dead-lettered (Reason=max-attempts): ' +
          'retries did not help. Inspect with `requeue dlq list --reason max-attempts`.',
        worker.deadLetteredFor('max-attempts'),
        thresholds.exhausted,
      ),
      ...(thresholds.firstFailures === undefined
        ? {}
        : {
            firstFailures: alarm(
              'FirstFailuresAlarm',
              'Messages are failing on their first attempt: a new error pattern. See the "First failures by ErrorType" graph.',
              worker.firstFailures,
              thresholds.firstFailures,
            ),
          }),
    };
  }

  /** The console address of the dashboard, in the stack's region and partition. */
  get dashboardUrl(): string {
    return consoleUrl(this, `/cloudwatch/home?region=${Aws.REGION}#dashboards:name=${this.dashboard.dashboardName}`);
  }
}
