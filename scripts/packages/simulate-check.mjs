import { CheckError, run } from './run.mjs';

/**
 * `npx requeue simulate` where the CLI and @requeue/local-aws are installed (the CDK app):
 * an outage of the dependency, every message accounted for; and in an app with the CLI
 * alone, the line that says what to install.
 */
export async function checkSimulate(cdkDir, cliOnlyDir) {
  const profile = JSON.stringify({
    durationSeconds: 60,
    traffic: [{ ratePerSecond: 20 }],
    failures: { permanent: 0.05 },
    dependency: { outages: [{ startSeconds: 20, durationSeconds: 20 }] },
  });
  const { output } = await run('npx', ['requeue', 'simulate', '--profile', profile, '--json'], { cwd: cdkDir, env: { PATH: process.env.PATH } });
  const [summary] = JSON.parse(output.slice(output.indexOf('{'))).runs;
  const ended = summary.succeeded + summary.deadLettered.total + summary.redrivenBySqs;
  if (summary.published !== 1200 || ended !== summary.published || !(summary.deadLettered.byReason['non-retryable'] > 0)) {
    throw new CheckError(`\`requeue simulate\` did not account for its 1,200 messages: ${JSON.stringify(summary)}`);
  }
  const missing = await run('npx', ['requeue', 'simulate', '--duration', '10s'], { cwd: cliOnlyDir, env: { PATH: process.env.PATH }, allowFailure: true });
  if (missing.code !== 1 || !missing.output.includes('npm install --save-dev @requeue/local-aws')) {
    throw new CheckError(`\`requeue simulate\` without @requeue/local-aws did not say what to install (exit ${missing.code}):\n${missing.output}`);
  }
  return summary;
}
