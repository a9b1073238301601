/**
 * The worker's environment contract (docs/contracts.md, section 2), as `QueueWorkerService`
 * from `@requeue/cdk` sets it on the task: read it into options for your own `SqsWorker` or
 * `SqsWorkerModule`, so the construct's retry policy, concurrency, idempotency table,
 * metrics namespace and drain timeout reach your app.
 *
 * @example
 * ```ts
 * import { workerOptionsFromEnv } from '@requeue/sqs/env';
 *
 * SqsWorkerModule.forRoot({ sqs: new SQSClient({}), ...workerOptionsFromEnv() });
 * ```
 *
 * @packageDocumentation
 */
export { WorkerConfigError } from './config-error.js';
export type { IdempotencyKeySource, IdempotencySetting } from './idempotency-setting.js';
export { readJsonSetting } from './json-setting.js';
export { integer as readIntegerSetting, onOff as readOnOffSetting, url as readUrlSetting, type Env } from './readers.js';
export type { IntegerLimit, IntegerRange } from '../option-limits.js';
export { readWorkerEnv, type WorkerEnvSettings } from './read-worker-env.js';
export type { StoreLocation } from './store-location.js';
export { workerOptions, workerOptionsFromEnv, type WorkerEnvContext, type WorkerEnvOptions } from './worker-options.js';
export { MissingPeerError } from '../peers/optional-peer.js';
