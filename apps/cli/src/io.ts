import { createInterface } from 'node:readline/promises';

/** How a command talks to its user: output, errors, the environment, and questions when there is a terminal. */
export interface CliIo {
  out: (text: string) => void;
  err: (text: string) => void;
  env: Readonly<Record<string, string | undefined>>;
  /** Asks a yes/no question; undefined when there is no terminal to ask on. */
  ask: ((question: string) => Promise<string>) | undefined;
}

/** The terminal's yes/no prompt, when stdin is one. */
export function terminalQuestion(): CliIo['ask'] {
  if (!process.stdin.isTTY) return undefined;
  return async (question) => {
    const rl = createInterface({ input: process.stdin, output: process.stderr });
    try {
      return await rl.question(question);
    } finally {
      rl.close();
    }
  };
}
