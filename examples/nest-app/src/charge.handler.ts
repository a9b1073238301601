import { Injectable, Logger } from '@nestjs/common';
import { NonRetryableError, RetryableError, SqsHandler, type WorkerMessage } from '@requeue/nest';
import { z } from 'zod';

/** What a charge job carries. A body that does not match is dead-lettered as VALIDATION, unhandled. */
export const chargeSchema = z.object({
  orderId: z.string().min(1),
  amountCents: z.number().int(),
  currency: z.string().length(3).default('EUR'),
});
export type Charge = z.output<typeof chargeSchema>;

@Injectable()
export class ChargeHandler {
  private readonly logger = new Logger(ChargeHandler.name);
  private readonly paymentsUrl = process.env.PAYMENTS_URL ?? 'http://127.0.0.1:9000';

  // TypeScript checks that the method takes WorkerMessage<the schema's output>.
  @SqsHandler('charge', { schema: chargeSchema })
  async charge(message: WorkerMessage<Charge>): Promise<void> {
    const charge = message.body;
    const response = await fetch(`${this.paymentsUrl}/charges`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': message.idempotencyKey },
      body: JSON.stringify(charge),
      signal: message.signal,
    });
    if (response.status >= 500 || response.status === 429) {
      // The payment API is down or busy: requeue retries later, with backoff and jitter.
      throw new RetryableError(`payments answered ${response.status}`, { errorType: response.status === 429 ? 'RATE_LIMIT' : 'TEMPORARY' });
    }
    if (!response.ok) throw new NonRetryableError(`payments refused ${charge.orderId}: ${response.status}`);
    this.logger.log(`charged ${charge.orderId} (${charge.amountCents} ${charge.currency}) on attempt ${message.attempt}`);
  }
}
