import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import SlowFirstSequencer from './test/support/slow-first-sequencer.js';

const src = (path: string) => fileURLToPath(new URL(path, import.meta.url));

// Tests import workspace packages from their TypeScript sources, so a test run never
// depends on a stale build of a sibling package.
export default defineConfig({
  resolve: {
    alias: {
      '@requeue/retry/engine': src('./libs/retry/src/engine.ts'),
      '@requeue/retry': src('./libs/retry/src/index.ts'),
      // The subpath first: an alias also matches the paths below it.
      '@requeue/sqs/metric-names': src('./libs/sqs/src/metric-names.ts'),
      '@requeue/sqs/publisher': src('./libs/sqs/src/publisher/index.ts'),
      '@requeue/sqs/dead-letters': src('./libs/sqs/src/dead-letters/index.ts'),
      '@requeue/sqs/emf': src('./libs/sqs/src/emf.ts'),
      '@requeue/sqs/backpressure': src('./libs/sqs/src/backpressure/public.ts'),
      '@requeue/sqs/env': src('./libs/sqs/src/env/index.ts'),
      '@requeue/sqs/received': src('./libs/sqs/src/received/index.ts'),
      '@requeue/sqs/time': src('./libs/sqs/src/time/index.ts'),
      '@requeue/sqs': src('./libs/sqs/src/index.ts'),
      '@requeue/lambda': src('./libs/lambda/src/index.ts'),
      '@requeue/nest/publisher': src('./libs/nest/src/publisher.ts'),
      '@requeue/nest': src('./libs/nest/src/index.ts'),
      '@requeue/local-aws/memory-sqs': src('./libs/local-aws/src/memory-sqs.ts'),
      '@requeue/local-aws/simulation-ledger': src('./libs/local-aws/src/simulation-ledger.ts'),
      '@requeue/local-aws': src('./libs/local-aws/src/index.ts'),
      '@requeue/cdk': src('./libs/cdk/src/index.ts'),
      '@requeue/infra': src('./infra/lib/index.ts'),
    },
  },
  test: {
    include: ['libs/**/src/**/*.test.ts', 'apps/**/src/**/*.test.ts', 'infra/test/**/*.test.ts', 'test/**/*.test.ts', 'bench/**/*.test.ts'],
    // The image's tests build it: `npm run test:image` (vitest.image.config.ts); the
    // newcomer's clone and install it: `npm run test:newcomer` (vitest.newcomer.config.ts).
    exclude: ['**/node_modules/**', '**/dist/**', 'test/image/**', 'test/newcomer/**'],
    setupFiles: ['test/support/cdk-outdir.ts'],
    // The suite starts a few hundred Node processes (workers, the CLI, the demo): V8's code
    // cache, shared between them, spares each the compile of the same modules.
    env: { NODE_COMPILE_CACHE: join(tmpdir(), 'requeue-test-compile-cache') },
    testTimeout: 30_000,
    // Hooks synthesize CDK stacks and start emulators: on a loaded 2-core machine one
    // synthesis took over 10 s (vitest's default), failing a suite that would have passed.
    hookTimeout: 60_000,
    // Test files share their worker processes rather than each importing the AWS SDK, Nest
    // and the CDK afresh: that import was half the suite's CPU. So a file that changes
    // process-wide state (environment, timers, globals) puts it back.
    isolate: false,
    // Four at a time on 2 cores: the files' CPU adds up to about 400 s, their wall time to
    // 850 s, most of the difference spent waiting (retry delays, visibility timeouts,
    // outages, restarts); with three at once the CPUs sat idle a fifth of the run. Tests
    // that time a reaction (a heartbeat, a SIGTERM's release) run alone within their files
    // (docs/design/2026-11-28-suite-time.md).
    maxWorkers: 4,
    sequence: { sequencer: SlowFirstSequencer },
  },
});
