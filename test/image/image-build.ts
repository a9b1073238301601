import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** What one command printed, and how it ended. */
export interface CommandResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end; never throws on a non-zero exit (the caller asserts). */
export function command(file: string, args: readonly string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { cwd: options.cwd ?? ROOT, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Like `command`, but a non-zero exit is an error carrying what the command printed. */
export async function mustRun(file: string, args: readonly string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<string> {
  const result = await command(file, args, options);
  if (result.code !== 0) throw new Error(`${file} ${args.join(' ')} exited with ${result.code}:\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

/** The worker container as the synthesized task definition describes it. */
export interface TaskContainer {
  environment: Record<string, string>;
  healthCheck: string[];
  stopTimeoutSeconds: number;
}

/** The image asset `cdk deploy` would build: its staged context folder, Dockerfile and platform. */
export interface ImageAsset {
  directory: string;
  dockerFile: string;
  platform: string;
}

export interface SynthesizedApp {
  asset: ImageAsset;
  container: TaskContainer;
}

interface AssetManifest {
  dockerImages: Record<string, { source: { directory: string; dockerFile?: string; platform?: string } }>;
}

interface TaskDefinitionResource {
  Type: string;
  Properties: {
    ContainerDefinitions: {
      Environment?: { Name: string; Value: unknown }[];
      HealthCheck: { Command: string[] };
      StopTimeout: number;
    }[];
  };
}

/**
 * `cdk synth` of this repository's app into a fresh folder, as `cdk deploy` starts: the
 * CLI stages the image's build context there through `.dockerignore`, and the asset
 * manifest says which Dockerfile and platform it builds.
 */
export async function synthesizeApp(): Promise<SynthesizedApp> {
  const out = mkdtempSync(join(tmpdir(), 'requeue-image-synth-'));
  const env = { ...process.env, AWS_PROFILE: undefined, AWS_ACCESS_KEY_ID: undefined, AWS_SECRET_ACCESS_KEY: undefined };
  await mustRun('npx', ['cdk', 'synth', '--quiet', '--output', out], { env });
  const manifest = JSON.parse(readFileSync(join(out, 'Requeue.assets.json'), 'utf8')) as AssetManifest;
  const images = Object.values(manifest.dockerImages);
  if (images.length !== 1) throw new Error(`expected one image asset, found ${images.length}`);
  const { source } = images[0]!;
  const template = JSON.parse(readFileSync(join(out, 'Requeue.template.json'), 'utf8')) as { Resources: Record<string, TaskDefinitionResource> };
  const task = Object.values(template.Resources).find((r) => r.Type === 'AWS::ECS::TaskDefinition');
  const definition = task?.Properties.ContainerDefinitions[0];
  if (!definition) throw new Error('the synthesized stack has no task definition');
  return {
    asset: { directory: join(out, source.directory), dockerFile: source.dockerFile ?? 'Dockerfile', platform: source.platform ?? 'linux/amd64' },
    container: {
      // Values only known at deploy (queue URLs) are references, not strings: left out.
      environment: Object.fromEntries((definition.Environment ?? []).flatMap((e) => (typeof e.Value === 'string' ? [[e.Name, e.Value]] : []))),
      healthCheck: definition.HealthCheck.Command,
      stopTimeoutSeconds: definition.StopTimeout,
    },
  };
}

/** Builds the asset with buildah, from local storage only (the base is there already). */
export async function buildImage(asset: ImageAsset, tag: string): Promise<void> {
  const log = await command('buildah', [
    'bud',
    '--pull=never',
    '--layers',
    '--isolation=chroot',
    '--platform',
    asset.platform,
    '-f',
    join(asset.directory, asset.dockerFile),
    '-t',
    tag,
    asset.directory,
  ]);
  if (log.code !== 0) throw new Error(`the image build failed (exit ${log.code}):\n${log.stdout.slice(-8000)}\n${log.stderr.slice(-8000)}`);
}

/** Bytes of an image, as the container engine counts them (uncompressed layers). */
export async function imageBytes(image: string): Promise<number> {
  return Number((await mustRun('podman', ['image', 'inspect', '--format', '{{.Size}}', image])).trim());
}

/** The image the Dockerfile's stages start from. */
export function dockerfileBase(asset: ImageAsset): string {
  const from = /^FROM\s+(\S+)/m.exec(readFileSync(join(asset.directory, asset.dockerFile), 'utf8'))?.[1];
  if (!from) throw new Error('the Dockerfile has no FROM line');
  return from;
}
