import { appendFileSync } from 'node:fs';
import net from 'node:net';

/**
 * Preloaded into a worker process (`NODE_OPTIONS=--import=<compiled file>`) with
 * CONNECTION_LOG set: appends the host of every TCP connection the process opens, one a
 * line, so a test can see where a process reached out. Every client socket (http, fetch,
 * the AWS SDK, Redis) connects through `net.Socket.prototype.connect`.
 */
const logFile = process.env.CONNECTION_LOG;
if (logFile) {
  const connect = net.Socket.prototype.connect;
  net.Socket.prototype.connect = function (this: net.Socket, ...args: unknown[]) {
    // net.connect() hands over its arguments already normalized, as one array.
    const [first, second] = Array.isArray(args[0]) ? (args[0] as unknown[]) : args;
    const target = (typeof first === 'object' && first !== null ? first : { port: first, host: second }) as { host?: unknown; path?: unknown };
    // Node's default host when none is given is localhost.
    const host = target.path ? `unix:${String(target.path)}` : String(target.host ?? 'localhost');
    appendFileSync(logFile, `${host}\n`);
    return (connect as (...a: unknown[]) => net.Socket).apply(this, args);
  } as typeof connect;
}
