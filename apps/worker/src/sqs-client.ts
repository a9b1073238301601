import { SQSClient } from '@aws-sdk/client-sqs';
import { withoutSdkCallLogging } from '@requeue/sqs';

/** Hosts whose traffic never leaves the machine. */
const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/;

/**
 * Whether SQS's answers reach the worker intact without the SDK's own MD5 check of every
 * message body (on receive, and of each send's echo): an AWS endpoint (none set) or any
 * https one carries them over TLS, whose record integrity check covers the body, and a
 * loopback one never crosses a network. Plain HTTP to another host keeps the check.
 */
export function bodyIntegrityGuaranteed(endpoint: string | undefined): boolean {
  if (endpoint === undefined) return true;
  if (!URL.canParse(endpoint)) return false;
  const url = new URL(endpoint);
  return url.protocol === 'https:' || LOOPBACK.test(url.hostname);
}

/** The worker's SQS client: the emulator's endpoint and any credentials locally, the standard chain on AWS. */
export function sqsClient(region: string | undefined, endpoint: string | undefined, localCredentials: boolean): SQSClient {
  return withoutSdkCallLogging(
    new SQSClient({
      region,
      // The SDK builds a command's middleware chain once per command class instead of on
      // every call; the worker adds no middleware after its first call, so the cache is
      // safe and saves that work on every message.
      cacheMiddleware: true,
      ...(bodyIntegrityGuaranteed(endpoint) ? { md5: false as const } : {}),
      ...(endpoint ? { endpoint } : {}),
      // The embedded emulator accepts any credentials; real AWS uses the standard chain.
      ...(localCredentials ? { credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}),
    }),
  );
}
