import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { TerminusModule } from '@nestjs/terminus';
import { SqsHealthIndicator } from './sqs-health.indicator.js';
import { SqsWorkerService } from './sqs-worker.service.js';
import { ConfigurableModuleClass } from './sqs-worker.options.js';

/**
 * `SqsWorkerModule.forRoot(options)` or `.forRootAsync({ imports, inject, useFactory })`.
 * Decorate one provider method with `@SqsHandler()`; the module finds it, starts the
 * worker after bootstrap and drains it on shutdown (call `app.enableShutdownHooks()`).
 */
@Module({
  imports: [DiscoveryModule, TerminusModule],
  providers: [SqsWorkerService, SqsHealthIndicator],
  exports: [SqsWorkerService, SqsHealthIndicator],
})
export class SqsWorkerModule extends ConfigurableModuleClass {}
