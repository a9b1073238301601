import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Platform } from 'aws-cdk-lib/aws-ecr-assets';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import { InfraConfigError } from '@requeue/cdk';

const DOCKERFILE = 'apps/worker/Dockerfile';

/**
 * The worker image as a Docker asset. The build context is the repository root, because
 * the image builds the workspace packages the worker depends on; `.dockerignore` keeps
 * node_modules, builds and tests out of the context and out of the asset hash.
 */
export function workerImageFromRepository(): ecs.ContainerImage {
  return ecs.ContainerImage.fromAsset(repositoryRoot(), { file: DOCKERFILE, platform: Platform.LINUX_AMD64 });
}

/** Walks up from this module (infra/lib or infra/dist/lib) to the folder holding the Dockerfile. */
function repositoryRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, DOCKERFILE))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new InfraConfigError('image', `cannot find ${DOCKERFILE} above ${fileURLToPath(import.meta.url)}; pass an image explicitly`);
    dir = parent;
  }
}
