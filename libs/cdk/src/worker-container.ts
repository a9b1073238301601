import { Duration, Token, Tokenization } from 'aws-cdk-lib';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { FleetStateTable } from './fleet-state-table.js';
import type { IdempotencyTable } from './idempotency-table.js';
import { workerNodeOptions } from './worker-node-options.js';
import type { Settings } from './worker-settings.js';
import { tenantEnvironment } from './worker-tenants.js';
import type { TenantOptions } from '@requeue/sqs';

/** The port the worker's health endpoints listen on inside the task (`WORKER_HEALTH_PORT`). */
export const HEALTH_PORT = 8080;

export interface WorkerContainerInput {
  readonly image: ecs.ContainerImage;
  readonly queue: sqs.IQueue;
  readonly deadLetterQueue: sqs.IQueue;
  readonly environment?: Record<string, string>;
  readonly secrets?: Record<string, ecs.Secret>;
  /** WORKER_RETRY_STATE_KEYS, from Secrets Manager. */
  readonly retryStateKeys: ecs.Secret;
  readonly healthCheck?: ecs.HealthCheck;
  readonly idempotencyTable?: IdempotencyTable;
  readonly idempotencyKey?: string;
  readonly fleetStateTable?: FleetStateTable;
  readonly taskProtection?: boolean;
  readonly tenants?: TenantOptions;
  readonly logGroup: logs.ILogGroup;
  readonly settings: Settings;
}

/** The worker container: the contract's environment (docs/contracts.md), logs, and a liveness probe. */
export function addWorkerContainer(taskDefinition: ecs.FargateTaskDefinition, input: WorkerContainerInput): ecs.ContainerDefinition {
  const { settings } = input;
  return taskDefinition.addContainer('Worker', {
    image: input.image,
    logging: ecs.LogDrivers.awsLogs({ logGroup: input.logGroup, streamPrefix: 'worker' }),
    environment: {
      ...heapOptions(settings.memoryLimitMiB),
      ...input.environment,
      WORKER_QUEUE_URL: input.queue.queueUrl,
      WORKER_DLQ_URL: input.deadLetterQueue.queueUrl,
      ...(settings.handler === undefined ? {} : { WORKER_HANDLER: settings.handler }),
      RETRY_POLICY: JSON.stringify(settings.retryPolicy),
      METRICS_NAMESPACE: settings.metricsNamespace,
      WORKER_MAX_IN_FLIGHT: Tokenization.stringifyNumber(settings.maxInFlight),
      ...settings.batchEnvironment,
      WORKER_DRAIN_TIMEOUT_MS: String(settings.drainTimeout.toMilliseconds()),
      WORKER_HEALTH_PORT: String(HEALTH_PORT),
      ...(input.idempotencyTable
        ? { WORKER_IDEMPOTENCY: `dynamodb:${input.idempotencyTable.tableName}`, WORKER_IDEMPOTENCY_KEY: input.idempotencyKey ?? 'message' }
        : {}),
      ...(input.fleetStateTable ? { WORKER_FLEET_STATE: `dynamodb:${input.fleetStateTable.tableName}` } : {}),
      ...(input.taskProtection === false ? { WORKER_TASK_PROTECTION: 'off' } : {}),
      ...tenantEnvironment(input.tenants, settings.maxInFlight),
    },
    secrets: { ...input.secrets, WORKER_RETRY_STATE_KEYS: input.retryStateKeys },
    stopTimeout: settings.stopTimeout,
    healthCheck: input.healthCheck ?? LIVENESS_PROBE,
  });
}

/** `/health/live` on `WORKER_HEALTH_PORT`, as the worker app and `@requeue/nest`'s `SqsHealthIndicator` serve it. */
const LIVENESS_PROBE: ecs.HealthCheck = {
  // Slim Node images have no curl; node's fetch does the probe.
  command: ['CMD', 'node', '-e', `fetch('http://127.0.0.1:${HEALTH_PORT}/health/live').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))`],
  interval: Duration.seconds(30),
  timeout: Duration.seconds(5),
  retries: 3,
  startPeriod: Duration.seconds(30),
};

/**
 * The heap flags need the task's memory as a number. With a token (known only at deploy)
 * they are left out and Node sizes its heap from the container's limit itself.
 */
function heapOptions(memoryLimitMiB: number): Record<string, string> {
  return Token.isUnresolved(memoryLimitMiB) ? {} : { NODE_OPTIONS: workerNodeOptions(memoryLimitMiB) };
}
