/**
 * CloudWatch metrics in the embedded metric format: one JSON line per flush on stdout,
 * which the CloudWatch agent or the awslogs driver turns into the metrics the requeue
 * stack's alarms and dashboard read.
 *
 * @example
 * ```ts
 * import { EmfMetrics } from '@requeue/sqs/emf';
 *
 * new SqsWorker({ queueUrl, deadLetterQueueUrl, handler, metrics: new EmfMetrics({ namespace: 'Requeue', queueName: 'jobs' }) });
 * ```
 *
 * @packageDocumentation
 */
export { EmfMetrics, type EmfMetricsOptions } from './events/metrics.js';
