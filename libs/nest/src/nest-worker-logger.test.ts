import type { LoggerService } from '@nestjs/common';
import { describe, expect, it } from 'vitest';
import { NestWorkerLogger } from './nest-worker-logger.js';

describe('NestWorkerLogger', () => {
  it("writes the engine's lines to Nest's logger at the matching level, fields as JSON and errors as their message", () => {
    const lines: string[] = [];
    const record = (level: string) => (message: unknown) => void lines.push(`${level} ${String(message)}`);
    const nest: LoggerService = { log: record('log'), warn: record('warn'), error: record('error'), debug: record('debug') };
    const logger = new NestWorkerLogger(nest);
    logger.info({}, 'started');
    logger.warn({ consumer: 'orders', err: new TypeError('boom') }, 'handler failed');
    logger.error({ attempt: 3 }, 'dead-lettered');
    logger.debug({}, 'detail');
    expect(lines).toEqual([
      'log started',
      'warn handler failed {"consumer":"orders","err":"TypeError: boom"}',
      'error dead-lettered {"attempt":3}',
      'debug detail',
    ]);
  });
});
