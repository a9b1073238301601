import { ReceiveMessageCommand, type ReceiveMessageResult, type SQSClient } from '@aws-sdk/client-sqs';
import type { IdempotencyStore } from '@requeue/sqs';

const never = <T>(): Promise<T> => new Promise<T>(() => undefined);

/**
 * One worker process's life: after `kill()` it is gone mid-step. Its SQS calls still
 * reach SQS (a delete under way lands, a long poll under way still takes messages and
 * hides them) but no answer comes back, and its handlers never finish; nothing it held in
 * memory survives. The bodies it received are what a crash may leave hidden, half done, or
 * done twice.
 */
export class Incarnation {
  dead = false;
  /** What its receives brought: each SQS message's body, by its message id. */
  readonly received = new Map<string, string>();

  kill(): void {
    this.dead = true;
  }

  /** The process's SQS client: unanswered once it is dead. */
  client(sqs: SQSClient): SQSClient {
    const send = (command: unknown) => {
      if (this.dead) return never();
      return (sqs.send(command as never) as Promise<unknown>).then(
        (answer) => {
          if (command instanceof ReceiveMessageCommand)
            for (const { MessageId = '', Body = '' } of (answer as ReceiveMessageResult).Messages ?? []) this.received.set(MessageId, Body);
          return this.dead ? never() : answer;
        },
        (error: unknown) => (this.dead ? never() : Promise.reject(error as Error)),
      );
    };
    return { send } as unknown as SQSClient;
  }

  /** The process's idempotency store client: a dead process neither writes nor hears back. */
  store(store: IdempotencyStore): IdempotencyStore {
    const call =
      <A extends unknown[], T>(method: (...args: A) => Promise<T>) =>
      (...args: A): Promise<T> =>
        this.dead ? never<T>() : this.outlive(method.apply(store, args));
    return {
      configure: (options) => store.configure(options),
      saveInProgress: call(store.saveInProgress),
      saveSuccess: call(store.saveSuccess),
      deleteRecord: call(store.deleteRecord),
      getRecord: call(store.getRecord),
    };
  }

  /**
   * A handler's work in this process: it never ends once the process is dead. (The dead
   * process's own timers still fire in the simulation, so the caller must not start a
   * handler in it either.)
   */
  outlive<T>(work: Promise<T>): Promise<T> {
    return work.then(
      (value) => (this.dead ? never<T>() : value),
      (error: unknown) => (this.dead ? never<T>() : Promise.reject(error as Error)),
    );
  }
}
