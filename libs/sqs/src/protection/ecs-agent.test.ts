import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ecsAgent, MAX_AGENT_ANSWER_BYTES } from './ecs-agent.js';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

async function serve(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('the ECS agent client, faced with an answer that is not the agent’s', () => {
  it('follows no redirect: the call it was sent elsewhere never arrives, and the update fails', async () => {
    const elsewhere: string[] = [];
    const target = await serve((request, response) => {
      elsewhere.push(`${request.method} ${request.url}`);
      response.end('{"protection":{"ProtectionEnabled":true}}');
    });
    const agent = await serve((_request, response) => {
      response.writeHead(307, { location: `${target}/task-protection/v1/state` }).end();
    });
    await expect(ecsAgent(agent, { retries: 0 }).update(true, 5)).rejects.toThrow(/answered 307, a redirect, which is not followed/);
    expect(elsewhere).toEqual([]);
  });

  it('reads at most 64 KiB of an endless answer, and fails within its deadline', async () => {
    let written = 0;
    const agent = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 0x61);
      const more = () => {
        // 400 MiB, as a broken or hostile agent might send.
        let room = true;
        while (room && written < 400 * 1024 * 1024) {
          room = response.write(chunk);
          written += chunk.byteLength;
        }
        if (written >= 400 * 1024 * 1024) response.end();
      };
      response.on('drain', more);
      response.on('close', () => response.off('drain', more));
      more();
    });
    const started = Date.now();
    await expect(ecsAgent(agent, { retries: 0, timeoutMs: 1000 }).update(true, 5)).rejects.toThrow(/answered 200/);
    expect(Date.now() - started).toBeLessThan(1000);
    console.info(`agent answer: ${written} bytes written of 400 MiB before the client let go`);
    // The server got rid of what sockets buffer, not the 400 MiB.
    expect(written).toBeLessThan(16 * 1024 * 1024);
    expect(MAX_AGENT_ANSWER_BYTES).toBe(65_536);
  });
});
