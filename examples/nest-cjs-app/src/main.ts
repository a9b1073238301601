import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module';

async function bootstrap() {
  const app = await NestFactory.create(AppModule);
  // On SIGTERM the worker stops receiving, lets running handlers finish, then exits.
  app.enableShutdownHooks();
  // QueueWorkerService's container health check asks for /health/live on WORKER_HEALTH_PORT.
  await app.listen(Number(process.env.WORKER_HEALTH_PORT ?? 8080), process.env.WORKER_HEALTH_HOST ?? '0.0.0.0');
}
void bootstrap();
