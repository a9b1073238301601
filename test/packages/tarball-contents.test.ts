import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ESM script of the packaging check, without type declarations
import { checkContents } from '../../scripts/packages/pack.mjs';

const pkg = { name: '@requeue/example' };

function packageDir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'requeue-contents-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

describe("the packaging check of a tarball's contents", () => {
  const manifest = {
    exports: { '.': { types: './dist/index.d.ts', default: './dist/index.js' } },
    dependencies: { zod: '^4' },
    peerDependencies: { '@aws-sdk/client-sqs': '^3' },
  };

  it('passes a tarball that ships its entry points and imports only what it declares', async () => {
    const dir = packageDir({
      'dist/index.js':
        "import { z } from 'zod';\nimport { SQSClient } from '@aws-sdk/client-sqs';\nimport { a } from './a.js';\nimport { readFile } from 'node:fs';\n",
      'dist/index.d.ts': '',
    });
    await expect(checkContents(pkg, manifest, ['dist/index.js', 'dist/index.d.ts'], dir)).resolves.toBeUndefined();
  });

  it('fails when an entry point package.json names is not in the tarball', async () => {
    const dir = packageDir({ 'dist/index.d.ts': '' });
    await expect(checkContents(pkg, manifest, ['dist/index.d.ts'], dir)).rejects.toThrow(/the tarball lacks dist\/index\.js/);
  });

  it('fails on an import the manifest does not declare, static or dynamic, naming file and package', async () => {
    const statics = packageDir({ 'dist/index.js': "import {\n  x,\n} from '@requeue/retry/sub';\n", 'dist/index.d.ts': '' });
    await expect(checkContents(pkg, manifest, ['dist/index.js', 'dist/index.d.ts'], statics)).rejects.toThrow(
      /dist\/index\.js imports @requeue\/retry, which package\.json does not declare/,
    );
    const dynamic = packageDir({ 'dist/index.js': "const m = await import('pino');\n", 'dist/index.d.ts': '' });
    await expect(checkContents(pkg, manifest, ['dist/index.js', 'dist/index.d.ts'], dynamic)).rejects.toThrow(/imports pino/);
  });
});
