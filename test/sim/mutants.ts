/**
 * Known defects the simulation must catch, each planted in the engine's built code at load
 * time (`plant-mutant.ts`), never in its source: a file, a piece of code, and what
 * replaces it.
 */
export interface Mutant {
  name: string;
  defect: string;
  /** The end of the built file's path. */
  file: string;
  find: string;
  replace: string;
}

export const MUTANTS: readonly Mutant[] = [
  {
    name: 'delete-before-copy',
    defect: 'a retry deletes the original before its copy is sent, so a refused send loses the message',
    file: 'sqs/dist/delivery/execute-outcome.js',
    find: 'const sent = await batch.send(options.queueUrl, {',
    replace: 'await this.deleteOriginal(message, true);\n        const sent = await batch.send(options.queueUrl, {',
  },
  {
    name: 'copy-failure-ignored',
    defect: 'a retry copy that SQS refused is taken as sent, and the original deleted',
    file: 'sqs/dist/delivery/execute-outcome.js',
    find: "if (!sent.ok) {\n            this.failed(message, 'send-copy'",
    replace: "if (sent.ok === 'never') {\n            this.failed(message, 'send-copy'",
  },
  {
    name: 'dead-letter-failure-ignored',
    defect: 'a dead letter that SQS refused is taken as sent, and the original deleted',
    file: 'sqs/dist/delivery/execute-outcome.js',
    find: 'if (!sent.ok) {\n            this.context.unfinished.remember',
    replace: "if (sent.ok === 'never') {\n            this.context.unfinished.remember",
  },
  {
    name: 'fifo-follower-ahead-of-head',
    defect: "a FIFO group's later messages run while the one ahead of them waits out its retry",
    file: 'sqs/dist/delivery/group-sequencer.js',
    find: "if (settled === 'stays') {",
    replace: "if (settled === 'never') {",
  },
  {
    name: 'heartbeat-not-stopped',
    defect: 'the heartbeat is not stopped before a message settles: it goes on extending a message hidden for its retry, or given back',
    file: 'sqs/dist/delivery/execute-outcome.js',
    find: 'const extending = this.context.heartbeat.untrack(message.receiptHandle);',
    replace: 'const extending = undefined;',
  },
  {
    name: 'retry-skips-idempotency-claim',
    defect: 'a retry runs without claiming its idempotency key, so a retry delivered twice runs twice',
    file: 'sqs/dist/idempotency/guard.js',
    find: "if (key === undefined || key === '')\n            return { kind: 'unguarded' };",
    replace: "if (key === undefined || key === '' || message.attempt > 1)\n            return { kind: 'unguarded' };",
  },
  {
    name: 'attempt-counted-twice',
    defect: 'a retry counts two attempts',
    file: 'retry/dist/decide.js',
    find: 'attempt: state.attempt + 1,',
    replace: 'attempt: state.attempt + 2,',
  },
];

export function mutantNamed(name: string): Mutant {
  const mutant = MUTANTS.find((candidate) => candidate.name === name);
  if (!mutant) throw new Error(`no mutant ${JSON.stringify(name)}: one of ${MUTANTS.map((m) => m.name).join(', ')}`);
  return mutant;
}
