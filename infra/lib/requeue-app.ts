import { App, Validations } from 'aws-cdk-lib';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import { asTemplate, type CloudFormationTemplate } from '@requeue/local-aws';
import { AwsSolutionsChecks } from 'cdk-nag';
import { DEPLOYMENT_PROPS } from './deployment-props.js';
import { RequeueStack, type RequeueStackProps } from './requeue-stack.js';

/** The stack's id, and its name in CloudFormation. */
export const REQUEUE_STACK_ID = 'Requeue';

/**
 * The app `cdk deploy` runs: the stack, checked by the cdk-nag AwsSolutions pack through
 * `Validations`, so synth fails on any finding not acknowledged with a reason.
 */
export function createRequeueApp(props: RequeueStackProps = DEPLOYMENT_PROPS): { app: App; stack: RequeueStack } {
  const app = new App();
  // `-c requeue:worker=false` deploys queues and monitoring only, e.g. to LocalStack's
  // free edition, which has no ECS; the worker then runs with `npm start` beside it.
  const withoutWorker = String(app.node.tryGetContext('requeue:worker')) === 'false';
  const stack = new RequeueStack(app, REQUEUE_STACK_ID, withoutWorker ? { ...props, worker: false } : props);
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { app, stack };
}

/**
 * The stack's CloudFormation template, synthesized in memory, for local provisioning.
 * The same props as the deployed app give the same queues, topic and subscription; only
 * the worker image is a placeholder, because building or hashing it would not change
 * anything an emulator can use.
 */
export function synthesizeRequeueTemplate(props: RequeueStackProps = DEPLOYMENT_PROPS): unknown {
  // No CloudFormation validation here: it is the same stack `cdk synth` validates, and
  // its engine costs each local start (npm start, the demo, requeue local) 2 s of CPU.
  const app = new App({ analyticsReporting: false, builtinCloudFormationValidation: false });
  const stack = new RequeueStack(app, REQUEUE_STACK_ID, {
    ...props,
    worker: props.worker === false ? false : { image: ecs.ContainerImage.fromRegistry('requeue-worker:local'), ...props.worker },
  });
  return app.synth().getStackByName(stack.stackName).template;
}

/** The stack's template in the shape `@requeue/local-aws` provisions an emulator from. */
export function requeueStackTemplate(props: RequeueStackProps = DEPLOYMENT_PROPS): CloudFormationTemplate {
  return asTemplate(synthesizeRequeueTemplate(props), 'the synthesized requeue stack');
}
