import type { WorkerLogger } from '@requeue/sqs';

/** pino's level numbers, so that one Logs Insights query reads the worker's and the function's lines alike. */
const LEVELS = { debug: 20, info: 30, warn: 40, error: 50 } as const;

/** An error's message and name are not enumerable: written as pino's serializer writes them. */
function withErrors(_key: string, value: unknown): unknown {
  if (!(value instanceof Error)) return value;
  return { ...value, type: value.name, message: value.message, ...(value.cause === undefined ? {} : { cause: value.cause }) };
}

/**
 * The adapter's logger when none is given: one JSON object a line on stdout (`level`,
 * `time`, `msg` and the fields), as pino writes them, at `info` and above. Lambda sends
 * stdout to the function's log group, where `QueueMonitoring`'s "dead letters by cause"
 * table reads the `dead-lettered` lines.
 */
export function jsonLinesLogger(write: (line: string) => void = (line) => process.stdout.write(line)): WorkerLogger {
  const at = (level: keyof typeof LEVELS) => (fields: object, msg: string) => {
    let line: string;
    try {
      line = JSON.stringify({ level: LEVELS[level], time: Date.now(), ...fields, msg }, withErrors);
    } catch {
      // A field that does not serialize (a cycle) must not lose the line.
      line = JSON.stringify({ level: LEVELS[level], time: Date.now(), msg });
    }
    write(`${line}\n`);
  };
  return { debug: () => undefined, info: at('info'), warn: at('warn'), error: at('error') };
}
