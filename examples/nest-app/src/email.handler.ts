import { Injectable, Logger } from '@nestjs/common';
import { SqsHandler, type WorkerMessage } from '@requeue/nest';

/** Published by this app's own code (src/publish.ts), so the type is trusted without a schema. */
export interface WelcomeEmail {
  to: string;
  template: 'welcome';
}

@Injectable()
export class EmailHandler {
  private readonly logger = new Logger(EmailHandler.name);

  @SqsHandler('email')
  async send(message: WorkerMessage<WelcomeEmail>): Promise<void> {
    // A real handler calls the mail provider here, with message.idempotencyKey.
    this.logger.log(`emailed ${message.body.to} (${message.body.template}, tenant ${message.attributes.tenant ?? 'none'})`);
  }
}
