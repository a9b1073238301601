import { ConfigurableModuleBuilder } from '@nestjs/common';
import type { SqsWorkerOptions } from '@requeue/sqs';

export interface SqsWorkerModuleOptions extends Omit<SqsWorkerOptions, 'handler'> {
  /** The `@SqsHandler(name)` to run. @default 'default' */
  handlerName?: string;
  /** Start polling when the application boots. @default true */
  autoStart?: boolean;
  /**
   * Told about every handler failure, for error reporting. It cannot break the worker:
   * whatever it throws is logged and ignored.
   */
  onError?: (error: unknown, context: { messageId: string; attempt: number }) => void;
}

export const { ConfigurableModuleClass, MODULE_OPTIONS_TOKEN } =
  new ConfigurableModuleBuilder<SqsWorkerModuleOptions>().setClassMethodName('forRoot').build();
