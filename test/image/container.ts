import { spawn } from 'node:child_process';
import { command, mustRun, type CommandResult } from './image-build.js';

/**
 * podman's global flags for machines like CI's: runc with cgroupfs (crun refuses some
 * cgroup layouts) and explicit limits (root there may not raise its own).
 */
const PODMAN = ['--cgroup-manager=cgroupfs'];
const RUN_FLAGS = ['--runtime', 'runc', '--ulimit', 'nofile=16384:16384', '--ulimit', 'nproc=4096:4096'];

export interface RunningContainer {
  readonly name: string;
  /** Everything the container printed so far, stdout and stderr interleaved. */
  output(): string;
  /** The container's exit code, once it has stopped. */
  readonly exited: Promise<number | null>;
  signal(signal: 'SIGTERM' | 'SIGINT'): Promise<void>;
  exec(args: readonly string[]): Promise<CommandResult>;
  remove(): Promise<void>;
}

export interface ContainerOptions {
  image: string;
  env: Record<string, string>;
  /** host folder → container folder */
  volumes?: Record<string, string>;
  /** In place of the image's command. */
  command?: string[];
}

let counter = 0;

/**
 * Runs the image on the host's network (the emulator listens on 127.0.0.1), in the
 * foreground of a podman process, so its output streams here and its exit code is podman's.
 */
export function runContainer(options: ContainerOptions): RunningContainer {
  const name = `requeue-image-test-${process.pid}-${counter++}`;
  const env = Object.entries(options.env).flatMap(([key, value]) => ['-e', `${key}=${value}`]);
  const volumes = Object.entries(options.volumes ?? {}).flatMap(([host, inside]) => ['-v', `${host}:${inside}`]);
  const child = spawn(
    'podman',
    [...PODMAN, 'run', '--name', name, ...RUN_FLAGS, '--network', 'host', ...env, ...volumes, options.image, ...(options.command ?? [])],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  // 'close', not 'exit': only then has all of the container's output been read.
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return {
    name,
    output: () => output,
    exited,
    signal: async (signal) => void (await mustRun('podman', [...PODMAN, 'kill', '--signal', signal.replace('SIG', ''), name])),
    exec: (args) => command('podman', [...PODMAN, 'exec', name, ...args]),
    remove: async () => void (await command('podman', [...PODMAN, 'rm', '--force', '--ignore', '--time', '0', name])),
  };
}

/** A one-off command in a fresh container of the image, as the image's user. */
export function runOnce(image: string, args: readonly string[]): Promise<CommandResult> {
  return command('podman', [...PODMAN, 'run', '--rm', ...RUN_FLAGS, '--network', 'none', '--entrypoint', args[0]!, image, ...args.slice(1)]);
}
