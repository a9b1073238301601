import type { RequeueStackProps } from './requeue-stack.js';

/**
 * The props `cdk deploy` uses, and the ones `npm start` provisions its embedded emulator
 * from: set them here, once, and local runs follow. For example
 * `{ queue: { visibilityTimeout: Duration.seconds(120) }, monitoring: { alarmEmail: 'ops@example.com' } }`.
 */
export const DEPLOYMENT_PROPS: RequeueStackProps = {};
