import { SqsWorkerConfigError } from '@requeue/sqs';
import type { MultiConsumerModuleOptions, SqsConsumerOptions, SqsModuleBehaviour, SqsWorkerModuleOptions } from './sqs-worker.options.js';

/** A consumer with its name settled and the module's defaults applied. */
export type ResolvedConsumer = SqsConsumerOptions & { name: string; sqs: NonNullable<SqsConsumerOptions['sqs']> };

/** Both forms of the options as one list of consumers, with unique names. */
export function consumerList(options: SqsWorkerModuleOptions): ResolvedConsumer[] {
  if (!('consumers' in options)) {
    const { handlerName = 'default', ...rest } = options;
    return [{ ...withoutBehaviour(rest), handlerName, name: handlerName }];
  }
  return fromList(options);
}

function fromList(options: MultiConsumerModuleOptions): ResolvedConsumer[] {
  const { consumers, sqs, ...rest } = options;
  const defaults = withoutBehaviour(rest);
  if (!Array.isArray(consumers) || consumers.length === 0) throw new SqsWorkerConfigError('consumers', 'must list at least one consumer');
  const seen = new Set<string>();
  return consumers.map((consumer, index) => {
    const name = consumer.name ?? consumer.handlerName;
    if (typeof name !== 'string' || !name) throw new SqsWorkerConfigError(`consumers[${index}].handlerName`, 'must name an @SqsHandler');
    if (seen.has(name)) throw new SqsWorkerConfigError(`consumers[${index}].name`, `"${name}" is taken by an earlier consumer; give each its own name`);
    seen.add(name);
    return { ...defaults, ...consumer, name, sqs: consumer.sqs ?? sqs };
  });
}

function withoutBehaviour<T extends SqsModuleBehaviour>(options: T): Omit<T, keyof SqsModuleBehaviour> {
  const { autoStart: _autoStart, onError: _onError, startRetryMs: _startRetryMs, ...engine } = options;
  return engine;
}
