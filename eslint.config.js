import js from '@eslint/js';
import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';

/**
 * The layers, lowest first. A library depends only on the layers below it, never on an
 * app; apps (the worker, the CLI, the demo, this repository's CDK app) may use any
 * library; the tests and benchmarks may use anything. Tags live in each project.json.
 */
const moduleBoundaries = [
  { sourceTag: 'layer:core', onlyDependOnLibsWithTags: ['layer:core'] },
  { sourceTag: 'layer:engine', onlyDependOnLibsWithTags: ['layer:core', 'layer:engine'] },
  { sourceTag: 'layer:framework', onlyDependOnLibsWithTags: ['layer:core', 'layer:engine', 'layer:framework'] },
  { sourceTag: 'layer:construct', onlyDependOnLibsWithTags: ['layer:core', 'layer:engine', 'layer:construct'] },
  { sourceTag: 'layer:tooling', onlyDependOnLibsWithTags: ['layer:tooling'] },
  { sourceTag: 'type:lib', onlyDependOnLibsWithTags: ['type:lib'] },
  { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:lib', 'type:app'] },
  { sourceTag: 'type:harness', onlyDependOnLibsWithTags: ['type:lib', 'type:app', 'type:harness'] },
];

function boundaryRule(allow) {
  return { allow, depConstraints: moduleBoundaries, enforceBuildableLibDependency: false };
}

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', 'cdk.out/**', '**/*.d.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    plugins: { '@nx': nx },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'off',
      // Prettier wraps code at 160; this catches what it leaves: comments. In tests,
      // benchmarks and scripts a long string (an expected message, a table row) may stay whole.
      'max-len': ['error', { code: 160, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreRegExpLiterals: true, ignoreUrls: true }],
      '@nx/enforce-module-boundaries': ['error', boundaryRule([])],
    },
  },
  {
    // What ships: strings too. A message a person reads is split where a clause ends.
    files: ['libs/*/src/**/*.ts', 'apps/*/src/**/*.ts', 'infra/**/*.ts'],
    ignores: ['**/*.test.ts', 'apps/worker/src/dashboard/page.ts'],
    rules: { 'max-len': ['error', { code: 160, ignoreRegExpLiterals: true, ignoreUrls: true }] },
  },
  {
    // The tests and benchmarks reach into sources and scripts to test what is not exported.
    files: ['test/**', 'bench/**'],
    rules: { '@nx/enforce-module-boundaries': ['error', boundaryRule(['../../libs/**', '../../apps/**', '../../scripts/**'])] },
  },
);
