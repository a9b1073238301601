import { readFileSync } from 'node:fs';
import { asTemplate, LocalProvisioningError, type CloudFormationTemplate } from './template.js';

/** A template from a file, e.g. `cdk.out/Requeue.template.json` after `npx cdk synth`. */
export function readStackTemplate(path: string): CloudFormationTemplate {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (cause) {
    throw new LocalProvisioningError(`cannot read the template ${path}: ${(cause as Error).message}. Run \`npx cdk synth\` first, or synthesize in memory.`, {
      cause,
    });
  }
  try {
    return asTemplate(JSON.parse(text), path);
  } catch (cause) {
    if (cause instanceof LocalProvisioningError) throw cause;
    throw new LocalProvisioningError(`${path} is not JSON: ${(cause as Error).message}`, { cause });
  }
}
