import { describe, expect, it } from 'vitest';
import { sqsClient } from './sqs-client.js';

/** The MD5 setting the SDK resolved: false when it skips the check of each message body. */
const md5Of = (endpoint: string | undefined) => (sqsClient('us-east-1', endpoint, true).config as { md5?: unknown }).md5;

describe("the worker's SQS client", () => {
  it.each([
    ['an AWS endpoint (none set)', undefined],
    ['an https endpoint', 'https://sqs.eu-west-1.amazonaws.com'],
    ['the embedded emulator on 127.0.0.1', 'http://127.0.0.1:4566'],
    ['localhost', 'http://localhost:4566'],
    ['IPv6 loopback', 'http://[::1]:4566'],
  ])('skips the SDK MD5 check of message bodies over %s, where TLS or loopback keeps them intact', (_, endpoint) => {
    expect(md5Of(endpoint)).toBe(false);
  });

  it.each([
    ['plain HTTP to another host', 'http://localstack:4566'],
    ['plain HTTP to a private address', 'http://10.0.0.5:9324'],
  ])('keeps the check over %s', (_, endpoint) => {
    expect(typeof md5Of(endpoint)).toBe('function');
  });
});
