import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { CheckError } from './run.mjs';

/**
 * `npx requeue local --port 0 --json` in the installed CDK app, as a user runs it after
 * `cdk synth`: the template comes from its cdk.out. Returns what it printed (the endpoint,
 * the queues, each container's environment) and a stop that sends it Ctrl-C.
 */
export async function startRequeueLocal(cdkDir) {
  // Its own process group, as a terminal's foreground job is: Ctrl-C reaches npx and the
  // requeue process under it alike (npx does not pass a signal on).
  const child = spawn('npx', ['requeue', 'local', '--port', '0', '--json'], {
    cwd: cdkDir,
    env: { PATH: process.env.PATH },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let errors = '';
  child.stderr.on('data', (chunk) => (errors += chunk));
  const closed = once(child, 'close');
  const firstLine = once(createInterface({ input: child.stdout }), 'line');
  const [line] = await Promise.race([
    firstLine,
    closed.then(([code]) => Promise.reject(new CheckError(`\`npx requeue local\` exited ${code} before printing:\n${errors}`))),
  ]);
  const local = JSON.parse(line);
  for (const field of ['endpoint', 'env', 'queues', 'containers']) {
    if (local[field] === undefined) throw new CheckError(`\`npx requeue local --json\` printed no ${field}: ${line}`);
  }
  return {
    local,
    async stop() {
      process.kill(-child.pid, 'SIGINT');
      // npx itself may end by the signal; requeue under it exits 0, or says why not.
      const [code, signal] = await closed;
      if (code !== 0 && signal !== 'SIGINT') throw new CheckError(`\`npx requeue local\` exited ${code ?? signal} on Ctrl-C:\n${errors}`);
      if (errors.includes('requeue:')) throw new CheckError(`\`npx requeue local\` reported on Ctrl-C:\n${errors}`);
    },
  };
}
