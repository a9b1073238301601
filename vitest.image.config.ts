import { defineConfig } from 'vitest/config';
import root from './vitest.config.js';

// npm run test:image: the worker image's tests, apart from `npm test` because they build
// the image (minutes, as root with podman and buildah; scripts/image-base.mjs prepares them).
// The root config's aliases, with its test selection replaced rather than merged.
export default defineConfig({
  ...root,
  test: {
    ...root.test,
    include: ['test/image/**/*.test.ts'],
    exclude: ['**/node_modules/**', '**/dist/**'],
    // One image, built once and shared by the tests of one file.
    maxWorkers: 1,
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
});
