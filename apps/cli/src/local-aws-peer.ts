import { CliError } from './errors.js';

/**
 * Imports from `@requeue/local-aws`, an optional peer: a CLI installed for the dead letters
 * alone does not carry it, and the commands that need it say how to add it.
 */
export async function importLocalAws<T>(command: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (cause) {
    if ((cause as { code?: string }).code === 'ERR_MODULE_NOT_FOUND' && String((cause as Error).message).includes('@requeue/local-aws')) {
      throw new CliError(`requeue ${command} needs the emulator package, which is not installed: npm install --save-dev @requeue/local-aws`, 1, { cause });
    }
    throw cause;
  }
}
