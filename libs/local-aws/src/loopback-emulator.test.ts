import { request } from 'node:http';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLoopbackEmulator, type LoopbackEmulator } from './loopback-emulator.js';

let emulator: LoopbackEmulator;
beforeAll(async () => {
  emulator = await startLoopbackEmulator(0);
});
afterAll(() => emulator.stop());

/** A raw SNS Publish as a browser page would send it: a form-encoded POST, with whatever headers the test gives. */
function publish(host: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const body = 'Action=Publish&TopicArn=arn:aws:sns:us-east-1:000000000000:Requeue-Topic&Message=hi';
    const call = request(
      { host, port: emulator.port, method: 'POST', path: '/', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers } },
      (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      },
    );
    call.once('error', reject);
    call.end(body);
  });
}

/** The local addresses listening on `port`, from the kernel's own table (hex, as /proc/net/tcp writes them). */
function listeningAddresses(port: number): string[] {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  return readFileSync('/proc/net/tcp', 'utf8')
    .split('\n')
    .slice(1)
    .map((line) => line.trim().split(/\s+/))
    .filter((fields) => fields[3] === '0A' && fields[1]?.endsWith(`:${hexPort}`))
    .map((fields) => fields[1]!.split(':')[0]!);
}

describe('the embedded emulator', () => {
  it('answers SDK requests on 127.0.0.1', async () => {
    expect(await publish('127.0.0.1', {})).not.toBe(403);
  });

  it('refuses a request a browser page makes (it carries Origin)', async () => {
    expect(await publish('127.0.0.1', { origin: 'https://evil.example' })).toBe(403);
  });

  it('refuses a request for another host name (DNS rebinding)', async () => {
    expect(await publish('127.0.0.1', { host: `rebind.evil.example:${emulator.port}` })).toBe(403);
  });

  it('listens on 127.0.0.1 only, not on every interface', () => {
    // 0100007F is 127.0.0.1; 00000000 would be 0.0.0.0, every interface.
    expect(listeningAddresses(emulator.port)).toEqual(['0100007F']);
  });
});
