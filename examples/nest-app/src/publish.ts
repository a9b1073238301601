// The producer side: jobs for both queues, published the way the worker reads them.
import { SQSClient } from '@aws-sdk/client-sqs';
import { RequeuePublisher } from '@requeue/sqs/publisher';
import { required } from './env.js';

const publisher = new RequeuePublisher({ sqs: new SQSClient({}) });

const charges = await publisher.sendBatch(required('WORKER_QUEUE_URL'), [
  { body: { orderId: 'order-1', amountCents: 1200 } },
  // This job may take up to 5 attempts, whatever the worker's own policy allows more of.
  { body: { orderId: 'order-2', amountCents: 800 }, retryPolicy: { maxAttempts: 5 } },
  { body: { orderId: 'order-3', amountCents: 'twelve' } },
  { body: { orderId: 'order-4', amountCents: -5 } },
]);
const email = await publisher.send(required('EMAIL_QUEUE_URL'), { body: { to: 'ada@example.com', template: 'welcome' }, attributes: { tenant: 'acme' } });

// A batch reports each entry: retry or log the failed ones, never assume all went.
for (const failure of charges.failed) console.error(`charge ${failure.index} not sent: ${failure.code} ${failure.message}`);
console.log(JSON.stringify({ charges: charges.successful.length, email: email.messageId }));
process.exitCode = charges.failed.length === 0 ? 0 : 1;
