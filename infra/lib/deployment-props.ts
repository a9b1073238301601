import type { RequeueStackProps } from './requeue-stack.js';

/**
 * The props `cdk deploy` uses, and the ones `npm start` provisions its embedded emulator
 * from: set them here, once, and local runs follow. For example
 * `{ queue: { visibilityTimeout: Duration.seconds(120) }, monitoring: { alarmEmail: 'ops@example.com' } }`.
 */
export const DEPLOYMENT_PROPS: RequeueStackProps = {};

/** The deployed props, with a FIFO queue when `fifo` is set (the `RetryingQueue` FIFO variant, as `npm run demo -- --fifo` runs). */
export function deploymentProps(options: { fifo?: boolean } = {}): RequeueStackProps {
  return options.fifo ? { ...DEPLOYMENT_PROPS, queue: { ...DEPLOYMENT_PROPS.queue, fifo: true } } : DEPLOYMENT_PROPS;
}
