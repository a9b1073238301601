import { Logger, type LoggerService } from '@nestjs/common';
import type { WorkerLogger } from '@requeue/sqs';

/**
 * The engine's logger on Nest's: each line is the message, then its fields as JSON (an
 * error as its message). Give it as the module's `logger` option; the engine logs nothing
 * unless given one.
 *
 * @example
 * ```ts
 * SqsWorkerModule.forRoot({ sqs, queueUrl, deadLetterQueueUrl, logger: new NestWorkerLogger() })
 * ```
 */
export class NestWorkerLogger implements WorkerLogger {
  /** @param logger - where the lines go. @defaultValue `new Logger('requeue')` */
  constructor(private readonly logger: LoggerService = new Logger('requeue')) {}

  /** Detail a developer turns on: Nest's `debug`. */
  debug(fields: object, message: string): void {
    this.logger.debug?.(line(fields, message));
  }

  /** What happened to a message: Nest's `log`. */
  info(fields: object, message: string): void {
    this.logger.log(line(fields, message));
  }

  /** Something the worker handles: Nest's `warn`. */
  warn(fields: object, message: string): void {
    this.logger.warn(line(fields, message));
  }

  /** Something an operator should look at: Nest's `error`. */
  error(fields: object, message: string): void {
    this.logger.error(line(fields, message));
  }
}

function line(fields: object, message: string): string {
  if (Object.keys(fields).length === 0) return message;
  const json = JSON.stringify(fields, (_key, value: unknown) =>
    value instanceof Error ? `${value.name}: ${value.message}` : typeof value === 'bigint' ? String(value) : value,
  );
  return `${message} ${json}`;
}
