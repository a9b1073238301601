export { RequeueStack, type RequeueStackProps, type RequeueWorkerProps } from './requeue-stack.js';
export { createRequeueApp, REQUEUE_STACK_ID, requeueStackTemplate, synthesizeRequeueTemplate } from './requeue-app.js';
export { DEPLOYMENT_PROPS, deploymentProps } from './deployment-props.js';
