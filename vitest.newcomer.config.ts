import { defineConfig } from 'vitest/config';
import root from './vitest.config.js';

// npm run test:newcomer: the README walked on a fresh clone of the working tree (npm ci
// included, minutes), apart from `npm test`, which it runs inside. It uses the fixed
// ports `npm start` uses (4566, 8080, 8081), so it runs alone.
export default defineConfig({
  ...root,
  test: {
    ...root.test,
    include: ['test/newcomer/**/*.test.ts'],
    exclude: ['**/node_modules/**', '**/dist/**'],
    maxWorkers: 1,
  },
});
