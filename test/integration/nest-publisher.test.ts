import { NestFactory } from '@nestjs/core';
import { RequeuePublisher } from '@requeue/nest/publisher';
import { describe, expect, it } from 'vitest';
import { AsyncPublisherApp, Checkout, GlobalPublisherApp } from '../support/nest-publisher-fixtures.js';

describe('RequeuePublisherModule', () => {
  it('provides RequeuePublisher to every module when global', async () => {
    const app = await NestFactory.createApplicationContext(GlobalPublisherApp, { logger: false });
    try {
      expect(app.get(Checkout).publisher).toBeInstanceOf(RequeuePublisher);
    } finally {
      await app.close();
    }
  });

  it('takes its options from a factory', async () => {
    const app = await NestFactory.createApplicationContext(AsyncPublisherApp, { logger: false });
    try {
      expect(app.get(RequeuePublisher)).toBeInstanceOf(RequeuePublisher);
    } finally {
      await app.close();
    }
  });
});
