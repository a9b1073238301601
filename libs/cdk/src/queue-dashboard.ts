import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { MetricDimension, MetricName } from '@requeue/sqs/metric-names';
import type * as ecs from 'aws-cdk-lib/aws-ecs';
import { runningTaskCount } from './service-metrics.js';
import type { WorkerMetrics } from './worker-metrics.js';

const MINUTE = Duration.minutes(1);

/** What the dashboard shows: `QueueMonitoring`'s props, resolved. */
export interface DashboardInput {
  readonly queue: sqs.IQueue;
  readonly deadLetterQueue: sqs.IQueue;
  readonly service?: ecs.BaseService;
  readonly spotInterruptions?: cloudwatch.IMetric;
  readonly dashboardName?: string;
  /** Graph the worst-served tenants. */
  readonly tenants: boolean;
  /** The worker's logs, where its dead-letterings are grouped by cause. */
  readonly workerLogGroup?: logs.ILogGroup;
  /** The worker as a Lambda function: its invocations, errors, throttles, duration and concurrency. */
  readonly workerFunction?: lambda.IFunction;
}

/**
 * `QueueMonitoring`'s dashboard: its alarms, where messages are, what the worker did, the
 * tenants (with tenants on) and the service's tasks.
 */
export function buildDashboard(scope: Construct, props: DashboardInput, worker: WorkerMetrics, alarms: cloudwatch.Alarm[]): cloudwatch.Dashboard {
  const q = props.queue;
  const visible = q.metricApproximateNumberOfMessagesVisible({ period: MINUTE, statistic: 'Maximum' });
  const dashboard = new cloudwatch.Dashboard(scope, 'Dashboard', { dashboardName: props.dashboardName, defaultInterval: Duration.hours(3) });
  dashboard.addWidgets(new cloudwatch.AlarmStatusWidget({ title: 'Alarms', alarms, width: 24, height: 3 }));
  dashboard.addWidgets(
    graph(
      'Messages: visible / in flight / delayed',
      [
        visible.with({ label: 'Visible' }),
        q.metricApproximateNumberOfMessagesNotVisible({ period: MINUTE, statistic: 'Maximum', label: 'In flight' }),
        // Delayed is where retries wait out their backoff.
        metricOf(q, 'ApproximateNumberOfMessagesDelayed', 'Maximum', 'Delayed (retries waiting)'),
      ],
      { stacked: true },
    ),
    graph('Age of oldest message (s)', [q.metricApproximateAgeOfOldestMessage({ period: MINUTE, statistic: 'Maximum', label: 'Oldest' })]),
    graph('Sent vs deleted per minute', [
      q.metricNumberOfMessagesSent({ period: MINUTE, statistic: 'Sum', label: 'Sent' }),
      q.metricNumberOfMessagesDeleted({ period: MINUTE, statistic: 'Sum', label: 'Deleted' }),
    ]),
    graph('DLQ: depth and inflow', [
      props.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period: MINUTE, statistic: 'Maximum', label: 'In DLQ' }),
      props.deadLetterQueue.metricNumberOfMessagesSent({ period: MINUTE, statistic: 'Sum', label: 'Dead-lettered per minute' }),
    ]),
  );
  dashboard.addWidgets(
    graph('Processed per minute', [worker.received.with({ label: 'Received' }), worker.succeeded.with({ label: 'Succeeded' })]),
    graph('Retried by ErrorType', [worker.search(MetricName.retried, MetricDimension.errorType)]),
    graph('First failures by ErrorType', [worker.search(MetricName.firstFailures, MetricDimension.errorType)]),
    graph('Dead-lettered by Reason', [worker.search(MetricName.deadLettered, MetricDimension.reason)]),
    graph('Handler duration (ms)', [worker.handlerDuration('p50'), worker.handlerDuration('p99')]),
    graph('Retry delay (s)', [worker.retryDelay('Average'), worker.retryDelay('Maximum')]),
  );
  if (props.workerLogGroup) dashboard.addWidgets(deadLettersByCause(props.workerLogGroup, q));
  if (props.tenants) {
    dashboard.addWidgets(
      graph('Tenants: longest dwell, send to start (ms)', [worker.worstTenantDwell, worker.search(MetricName.tenantDwell, MetricDimension.tenant, 'Maximum')]),
      graph('Tenants: handlers running', [worker.search(MetricName.tenantInFlight, MetricDimension.tenant, 'Maximum')]),
    );
  }
  if (props.workerFunction) dashboard.addWidgets(...functionGraphs(props.workerFunction));
  if (props.service) {
    dashboard.addWidgets(
      graph('Running tasks', [runningTaskCount(props.service.cluster, props.service).with({ label: 'Running' })]),
      graph('Task CPU and memory (%)', [
        props.service.metricCpuUtilization({ period: MINUTE, label: 'CPU' }),
        props.service.metricMemoryUtilization({ period: MINUTE, label: 'Memory' }),
      ]),
      ...(props.spotInterruptions ? [graph('Spot interruptions (per 5 min)', [props.spotInterruptions])] : []),
    );
  }
  return dashboard;
}

/**
 * The worker's dead-letterings of this queue grouped as `requeue dlq triage` groups the
 * DLQ, under the same ids (the worker logs each with its `deadLetterGroup`): which cause
 * is new, which keeps growing, and the id to give `requeue dlq redrive --group`.
 */
function deadLettersByCause(logGroup: logs.ILogGroup, queue: sqs.IQueue): cloudwatch.LogQueryWidget {
  return new cloudwatch.LogQueryWidget({
    title: 'Dead letters by cause (ids as `requeue dlq triage` prints them)',
    logGroupNames: [logGroup.logGroupName],
    view: cloudwatch.LogQueryVisualizationType.TABLE,
    queryLines: [
      `filter msg = "dead-lettered" and sourceQueue = "${queue.queueUrl}"`,
      'stats count(*) as deadLetters, min(@timestamp) as firstSeen, max(@timestamp) as lastSeen by deadLetterGroup, reason, errorType, dependency, fingerprint',
      'sort deadLetters desc',
      'limit 20',
    ],
    width: 24,
    height: 6,
  });
}

/** A worker function's own metrics: an error or a throttle there is the function's, not a handler's (those are the worker's metrics). */
function functionGraphs(fn: lambda.IFunction): cloudwatch.GraphWidget[] {
  return [
    graph('Function: invocations, errors, throttles', [
      fn.metricInvocations({ period: MINUTE, label: 'Invocations' }),
      fn.metricErrors({ period: MINUTE, label: 'Errors' }),
      fn.metricThrottles({ period: MINUTE, label: 'Throttles' }),
    ]),
    graph('Function: duration (ms)', [
      fn.metricDuration({ period: MINUTE, statistic: 'p50', label: 'p50' }),
      fn.metricDuration({ period: MINUTE, statistic: 'p99', label: 'p99' }),
    ]),
    graph('Function: concurrent executions', [fn.metric('ConcurrentExecutions', { period: MINUTE, statistic: 'Maximum', label: 'Concurrent' })]),
  ];
}

function graph(title: string, left: cloudwatch.IMetric[], options: { stacked?: boolean } = {}): cloudwatch.GraphWidget {
  return new cloudwatch.GraphWidget({ title, left, stacked: options.stacked ?? false, width: 8, height: 6, period: MINUTE });
}

function metricOf(queue: sqs.IQueue, metricName: string, statistic: string, label: string): cloudwatch.Metric {
  return new cloudwatch.Metric({ namespace: 'AWS/SQS', metricName, dimensionsMap: { QueueName: queue.queueName }, statistic, period: MINUTE, label });
}
