import { existsSync, readFileSync } from 'node:fs';
import { WorkerConfigError } from './config-error.js';

/**
 * A variable that holds JSON inline, or a path to a JSON file (`RETRY_POLICY`,
 * `WORKER_CONSUMERS`). Inline JSON starts with `{` or `[`; anything else is a path.
 */
export function readJsonSetting(variable: string, raw: string): { json: unknown; source: string } {
  const inline = /^[[{]/.test(raw.trim());
  let text = raw;
  if (!inline) {
    if (!existsSync(raw)) throw new WorkerConfigError(variable, `is neither JSON nor a readable file: ${JSON.stringify(raw)}`);
    text = readFileSync(raw, 'utf8');
  }
  try {
    return { json: JSON.parse(text) as unknown, source: inline ? `${variable} (inline JSON)` : raw };
  } catch (cause) {
    throw new WorkerConfigError(variable, `is not valid JSON${inline ? '' : ` (file ${raw})`}: ${(cause as Error).message}`, { cause });
  }
}
