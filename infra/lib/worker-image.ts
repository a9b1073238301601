import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Platform } from 'aws-cdk-lib/aws-ecr-assets';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import { InfraConfigError } from '@requeue/cdk';

const DOCKERFILE = 'apps/worker/Dockerfile';

/**
 * The worker image as a Docker asset, built for the tasks' processor. The build context
 * is the repository root, because the image builds the workspace packages the worker
 * depends on; `.dockerignore` lets in only what the Dockerfile copies, which keeps the
 * context small and the asset hash unchanged by anything else.
 */
export function workerImageFromRepository(cpuArchitecture: ecs.CpuArchitecture = ecs.CpuArchitecture.X86_64): ecs.ContainerImage {
  return ecs.ContainerImage.fromAsset(repositoryRoot(), { file: DOCKERFILE, platform: imagePlatform(cpuArchitecture) });
}

function imagePlatform(cpuArchitecture: ecs.CpuArchitecture): Platform {
  switch (cpuArchitecture._cpuArchitecture) {
    case ecs.CpuArchitecture.X86_64._cpuArchitecture:
      return Platform.LINUX_AMD64;
    case ecs.CpuArchitecture.ARM64._cpuArchitecture:
      return Platform.LINUX_ARM64;
    default:
      throw new InfraConfigError('cpuArchitecture', `the worker image is built for X86_64 or ARM64, got ${cpuArchitecture._cpuArchitecture}`);
  }
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
