#!/usr/bin/env node
// Run by `npm run test:image` before the tests: makes sure podman and buildah are here and
// that the worker Dockerfile's base image is in their local storage, so the build can run
// with --pull=never. In order: the image already present; a pull from its registry; a local
// stand-in built by the script named in REQUEUE_BASE_IMAGE_SCRIPT (default: the container
// tools beside the repository), for machines that reach no container registry.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const DOCKERFILE = `${root}apps/worker/Dockerfile`;
const STAND_IN = process.env.REQUEUE_BASE_IMAGE_SCRIPT ?? fileURLToPath(new URL('../../shared/tools/container/stand-in-node-image.sh', import.meta.url));
const PULL_TIMEOUT_MS = 120_000;

const say = (text) => process.stderr.write(`test:image: ${text}\n`);
const has = (command) => spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
const quiet = (command, args, timeout) => spawnSync(command, args, { stdio: 'ignore', timeout }).status === 0;

function fail(message) {
  say(message);
  process.exit(1);
}

/** The one base the Dockerfile's stages start from, with Docker Hub's implicit prefix. */
function baseImage() {
  const froms = [...readFileSync(DOCKERFILE, 'utf8').matchAll(/^FROM\s+(\S+)(?:\s+AS\s+(\S+))?/gim)];
  // A FROM naming an earlier stage builds on it, not on an image.
  const stages = new Set(froms.map((m) => m[2]).filter(Boolean));
  const bases = new Set(froms.map((m) => m[1]).filter((name) => !stages.has(name)));
  if (bases.size !== 1) fail(`expected one base image in ${DOCKERFILE}, found ${[...bases].join(', ')}`);
  const [name] = bases;
  return name.includes('/') ? name : `docker.io/library/${name}`;
}

function standIn(image) {
  const major = /^docker\.io\/library\/node:(\d+)-bookworm-slim$/.exec(image)?.[1];
  if (!major) fail(`${image} cannot be pulled, and a stand-in is made only for node:<major>-bookworm-slim`);
  if (!existsSync(STAND_IN)) {
    fail(
      `${image} is not in local storage and cannot be pulled; pull it, or set REQUEUE_BASE_IMAGE_SCRIPT to a script that builds a stand-in (${STAND_IN} does not exist)`,
    );
  }
  say(`building a local stand-in for ${image} with ${STAND_IN} (a few minutes, once per machine)`);
  const built = spawnSync('bash', [STAND_IN, major], { stdio: 'inherit' });
  if (built.status !== 0) fail(`the stand-in script exited with ${built.status}`);
}

const image = baseImage();
if (!has('podman') || !has('buildah')) {
  if (!existsSync(STAND_IN)) fail('podman and buildah are needed (Debian: apt-get install podman buildah runc)');
  standIn(image);
} else if (quiet('podman', ['image', 'exists', image])) {
  say(`${image} is in local storage`);
} else if (quiet('podman', ['pull', '--quiet', image], PULL_TIMEOUT_MS)) {
  say(`pulled ${image}`);
} else {
  standIn(image);
}
