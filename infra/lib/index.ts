export { InfraConfigError } from './errors.js';
export { QueueMonitoring, type QueueMonitoringProps } from './queue-monitoring.js';
export { QueueWorkerService, type QueueWorkerServiceProps } from './queue-worker-service.js';
export { RequeueStack, type RequeueStackProps } from './requeue-stack.js';
export { DEFAULT_MAX_RECEIVE_COUNT, RetryingQueue, type RetryingQueueProps } from './retrying-queue.js';
export { createRequeueApp, REQUEUE_STACK_ID, synthesizeRequeueTemplate } from './requeue-app.js';
export { DEPLOYMENT_PROPS } from './deployment-props.js';
export { workerNodeOptions } from './worker-node-options.js';
