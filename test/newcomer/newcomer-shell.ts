import { spawn, type ChildProcess } from 'node:child_process';

export interface ShellResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs one command line through `sh`, as a user types it, and resolves with its exit code and output. */
export function shell(command: string, options: { cwd?: string; env: NodeJS.ProcessEnv }): Promise<ShellResult> {
  const child = spawn('sh', ['-c', command], { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

export interface Shell {
  child: ChildProcess;
  /** Everything it printed so far, stdout and stderr interleaved. */
  output: () => string;
}

/** Starts a long-running command (not through `sh`: the process signalled is the command's own). */
export function startShell(file: string, args: string[], options: { cwd?: string; env: NodeJS.ProcessEnv }): Shell {
  const child = spawn(file, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return { child, output: () => output };
}

/** The command lines of the README's `sh` blocks, without their comments. */
export function readmeCommands(readme: string): string[] {
  const blocks = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]!);
  return blocks.flatMap((block) =>
    block
      .split('\n')
      .map((line) => line.replace(/\s+#.*$/, '').trim())
      .filter(Boolean),
  );
}
