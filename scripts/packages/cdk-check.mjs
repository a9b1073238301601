import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CheckError, run } from './run.mjs';

/**
 * The installed CDK example: type-checks, synthesizes with cdk-nag's AwsSolutions pack
 * (synth fails on any unacknowledged finding), and the task role may use the queue's
 * customer-managed key: decrypt to receive, generate data keys to send.
 */
export async function checkCdkApp(appDir) {
  await run('npx', ['tsc', '-p', '.'], { cwd: appDir });
  const outdir = join(appDir, 'cdk.out');
  await run(process.execPath, ['dist/main.js'], { cwd: appDir, env: { PATH: process.env.PATH, CDK_OUTDIR: outdir } });
  const template = JSON.parse(await readFile(join(outdir, 'Orders.template.json'), 'utf8'));
  const resources = Object.entries(template.Resources);
  const logicalId = (type, hint) => {
    const found = resources.filter(([id, r]) => r.Type === type && id.includes(hint));
    if (found.length !== 1) throw new CheckError(`expected one ${type} named like ${hint}, found ${found.map(([id]) => id).join(', ') || 'none'}`);
    return found[0][0];
  };
  const key = logicalId('AWS::KMS::Key', 'QueueKey');
  const taskRole = logicalId('AWS::IAM::Role', 'WorkerTaskRole');
  const keyActions = resources
    .filter(([, r]) => r.Type === 'AWS::IAM::Policy' && JSON.stringify(r.Properties.Roles) === JSON.stringify([{ Ref: taskRole }]))
    .flatMap(([, r]) => r.Properties.PolicyDocument.Statement)
    .filter((statement) => JSON.stringify(statement.Resource) === JSON.stringify({ 'Fn::GetAtt': [key, 'Arn'] }))
    .flatMap((statement) => [statement.Action].flat());
  for (const action of ['kms:Decrypt', 'kms:GenerateDataKey*']) {
    if (!keyActions.includes(action))
      throw new CheckError(`the task role may not ${action} with the queue's key; it may: ${keyActions.join(', ') || 'nothing'}`);
  }
  const encrypted = resources.filter(
    ([, r]) => r.Type === 'AWS::SQS::Queue' && JSON.stringify(r.Properties.KmsMasterKeyId) === JSON.stringify({ 'Fn::GetAtt': [key, 'Arn'] }),
  );
  if (encrypted.length !== 6) throw new CheckError(`expected both queue sets (queue, DLQ, undeliverable queue) under the key, found ${encrypted.length}`);
  return { resources: resources.length, keyActions };
}
