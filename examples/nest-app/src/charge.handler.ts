import { Injectable, Logger } from '@nestjs/common';
import { NonRetryableError, RetryableError, SqsHandler, type WorkerMessage } from '@requeue/nest';

interface Charge {
  orderId: string;
  amountCents: number;
}

function parseCharge(body: unknown): Charge {
  const { orderId, amountCents } = (body ?? {}) as Partial<Charge>;
  if (typeof orderId !== 'string' || typeof amountCents !== 'number') {
    // A malformed job never succeeds: dead-letter it now, with the reason.
    throw new NonRetryableError(`not a charge: ${JSON.stringify(body)}`, { errorType: 'VALIDATION' });
  }
  return { orderId, amountCents };
}

@Injectable()
export class ChargeHandler {
  private readonly logger = new Logger(ChargeHandler.name);
  private readonly paymentsUrl = process.env.PAYMENTS_URL ?? 'http://127.0.0.1:9000';

  @SqsHandler('charge')
  async charge(message: WorkerMessage): Promise<void> {
    const charge = parseCharge(message.body);
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
    this.logger.log(`charged ${charge.orderId} on attempt ${message.attempt}`);
  }
}
