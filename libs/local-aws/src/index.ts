/**
 * An SQS/SNS emulator on 127.0.0.1, provisioned from a synthesized CloudFormation template
 * (`cdk synth`): the queues with their attributes and redrive, the topics, the
 * subscriptions, and each ECS container's environment with the local queue URLs in it. No
 * AWS account, no Docker. `npx requeue local` runs it from the command line.
 *
 * @example
 * ```ts
 * import { readStackTemplate, startLocalAws } from '@requeue/local-aws';
 *
 * const local = await startLocalAws({ port: 4566, template: readStackTemplate('cdk.out/Orders.template.json') });
 * console.log(local.endpoint, local.stack.queues, local.stack.containers);
 * await local.stop();
 * ```
 *
 * @packageDocumentation
 */
export type { ContainerEnvironment } from './container-env.js';
export type { TemplateEventSource } from './event-sources.js';
export { freePort } from './free-port.js';
export {
  lambdaRecord,
  startLocalEventSource,
  type LocalEventSource,
  type LocalEventSourceOptions,
  type LocalInvocation,
  type LocalLambdaContext,
  type LocalSqsHandler,
  type LocalSqsRecord,
} from './local-event-source.js';
export { startLocalAws, startLocalRequeueStack, type LocalAws, type LocalAwsOptions, type LocalRequeueStack } from './local-aws.js';
export { startLoopbackEmulator, type LoopbackEmulator } from './loopback-emulator.js';
export { provisionFromTemplate, type ProvisionedQueue, type ProvisionedStack, type ProvisionOptions } from './provision.js';
export { checkSqsRequest, SQS_LIMITS, type SqsLimitCheck, type SqsLimitFailure } from './sqs-limits.js';
export { readStackTemplate } from './stack-template.js';
export { asTemplate, LocalProvisioningError, type CloudFormationTemplate, type TemplateResource } from './template.js';
