/**
 * The worker's path for messages something else received (Lambda's event source mapping,
 * another poller): decode, validation, classification, retry policy, idempotency and
 * tracing, settled as the worker settles them, except that a message done with is
 * reported, not deleted. `@requeue/lambda` is built on it.
 *
 * @packageDocumentation
 */
export { ReceivedMessages, type ProcessBounds, type ReceivedOptions } from './received-messages.js';
