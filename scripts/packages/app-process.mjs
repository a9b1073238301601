import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { CheckError, waitFor } from './run.mjs';

/**
 * An installed app's `node dist/main.js`, its output collected: ready once its
 * /health/ready answers 200, stopped with SIGTERM (a clean exit expected).
 */
export function startApp(appDir, env, { node = process.execPath } = {}) {
  const child = spawn(node, ['dist/main.js'], { cwd: appDir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const closed = once(child, 'close');
  return {
    output: () => output,
    async ready(healthPort) {
      const ready = () => {
        if (child.exitCode !== null) throw new CheckError(`the app exited with ${child.exitCode} while starting`);
        return fetch(`http://127.0.0.1:${healthPort}/health/ready`).then(
          (r) => r.ok,
          () => false,
        );
      };
      await waitFor('/health/ready', ready, 30_000);
    },
    /**
     * SIGTERM, then the exit: 0, or the signal itself when the app leaves that to Node.
     * The worker does not abort a receive under way (what it brings would be lost to the
     * visibility timeout), so a stop waits out a long poll of up to 20 s, then the drain.
     */
    async stop() {
      child.kill('SIGTERM');
      const [code, signal] = await Promise.race([closed, timeout(35_000, 'the app to exit after SIGTERM')]);
      if (code !== 0 && signal !== 'SIGTERM') throw new CheckError(`the app exited with ${code ?? signal} after SIGTERM`);
    },
    kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}

/** The queue's visible, in-flight and delayed counts. */
export async function depth(sqs, queueUrl) {
  const { Attributes: a = {} } = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: queueUrl,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible', 'ApproximateNumberOfMessagesDelayed'],
    }),
  );
  return {
    visible: Number(a.ApproximateNumberOfMessages),
    inFlight: Number(a.ApproximateNumberOfMessagesNotVisible),
    delayed: Number(a.ApproximateNumberOfMessagesDelayed),
  };
}

export function expectLine(output, text) {
  if (!output.includes(text)) throw new CheckError(`the app never logged "${text}"`);
}

function timeout(ms, what) {
  return new Promise((_, reject) => setTimeout(() => reject(new CheckError(`timed out after ${ms / 1000} s waiting for ${what}`)), ms).unref());
}
