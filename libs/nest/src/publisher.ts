/**
 * `RequeuePublisherModule`: `RequeuePublisher` from `@requeue/sqs/publisher` as a Nest
 * provider. Its own entry point, because publishing to a topic needs `@aws-sdk/client-sns`,
 * which a consumer-only app does not install.
 *
 * @packageDocumentation
 */
export { RequeuePublisherModule } from './requeue-publisher.module.js';
export { PublishError, RequeuePublisher, type BatchResult, type PublisherOptions, type PublishResult } from '@requeue/sqs/publisher';
