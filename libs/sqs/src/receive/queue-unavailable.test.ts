import { describe, expect, it } from 'vitest';
import { QueueUnavailableError } from './queue-unavailable.js';

const QUEUE = 'https://sqs.eu-west-1.amazonaws.com/123456789012/orders';
const sdkError = (name: string, message: string, extra: object = {}) => Object.assign(new Error(message), { name, ...extra });

describe('QueueUnavailableError.from', () => {
  it.each([
    [sdkError('CredentialsProviderError', 'Could not load credentials from any providers'), 'no-credentials', 'configure the standard chain'],
    [
      sdkError('InvalidClientTokenId', 'The security token included in the request is invalid.', { $metadata: { httpStatusCode: 403 } }),
      'no-credentials',
      'AWS_ACCESS_KEY_ID',
    ],
    [sdkError('QueueDoesNotExist', 'The specified queue does not exist.'), 'no-queue', 'check its URL'],
    [sdkError('AWS.SimpleQueueService.NonExistentQueue', 'The specified queue does not exist.'), 'no-queue', 'check its URL'],
    [
      sdkError('AccessDenied', 'User is not authorized to perform: sqs:getqueueattributes', { $metadata: { httpStatusCode: 403 } }),
      'access-denied',
      'sqs:GetQueueAttributes',
    ],
    [sdkError('Error', 'getaddrinfo ENOTFOUND sqs.us-east-1.localhost', { code: 'ENOTFOUND' }), 'unreachable', 'AWS_ENDPOINT_URL'],
    [sdkError('TypeError', 'fetch failed', { cause: { code: 'ECONNREFUSED' } }), 'unreachable', 'is it running?'],
    [sdkError('InternalError', 'We encountered an internal error.'), 'other', 'InternalError: We encountered an internal error.'],
  ] as const)('%s → %s, with what to do', (error, reason, advice) => {
    const explained = QueueUnavailableError.from(error, QUEUE);
    expect(explained).toMatchObject({ name: 'QueueUnavailableError', reason, queueUrl: QUEUE });
    expect(explained.message).toContain(QUEUE);
    expect(explained.message).toContain(advice);
    expect(explained.cause).toBe(error);
  });
});
