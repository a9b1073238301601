import { appendFileSync } from 'node:fs';
import { sqsHandler } from '@requeue/lambda';
import { RetryableError } from '@requeue/retry';

/**
 * A function's handler as a team writes it, bundled by `QueueWorkerFunction({ entry })`:
 * the first attempt of each job fails as retryable, the second appends `<id> <attempt>` to
 * the file `HANDLED_LOG` names (the stack sets it in the function's environment).
 */
export const handler = sqsHandler<{ id: string }>(async (message) => {
  if (message.attempt === 1) throw new RetryableError('the first attempt fails', { errorType: 'TEMPORARY' });
  appendFileSync(process.env.HANDLED_LOG ?? 'handled.log', `${message.body.id} ${message.attempt}\n`);
});
