import { Injectable, Logger } from '@nestjs/common';
import { RetryableError, SqsHandler, type WorkerMessage } from '@requeue/nest';

interface Order {
  orderId: string;
  /** How long the work takes. */
  ms?: number;
  /** A dependency that never recovers: the message ends in the DLQ once the policy gives up. */
  failing?: boolean;
}

@Injectable()
export class OrdersHandler {
  private readonly logger = new Logger(OrdersHandler.name);
  private running = 0;
  private mostAtOnce = 0;

  @SqsHandler()
  async handle(message: WorkerMessage<Order>): Promise<void> {
    this.running++;
    this.mostAtOnce = Math.max(this.mostAtOnce, this.running);
    try {
      if (message.body.failing) throw new RetryableError('the payment API is down', { errorType: 'TEMPORARY' });
      await new Promise((resolve) => setTimeout(resolve, message.body.ms ?? 0));
      this.logger.log(`handled ${message.body.orderId} on attempt ${message.attempt}; most at once so far: ${this.mostAtOnce}`);
    } finally {
      this.running--;
    }
  }
}
