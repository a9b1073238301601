// `@requeue/sqs/publisher`: its own entry point, because it needs @aws-sdk/client-sns, an
// optional peer that an app which only consumes does not install.
export { MAX_PUBLISHER_ATTRIBUTES, PublishValidationError, type OutgoingMessage } from './outgoing.js';
export { PublishError, PublisherConfigError, RequeuePublisher, type BatchResult, type PublisherOptions, type PublishResult } from './publisher.js';
