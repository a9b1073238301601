export { RequeueStack, type RequeueStackProps, type RequeueWorkerProps } from './requeue-stack.js';
export { createRequeueApp, REQUEUE_STACK_ID, synthesizeRequeueTemplate } from './requeue-app.js';
export { DEPLOYMENT_PROPS } from './deployment-props.js';
