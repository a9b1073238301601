import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = (path: string) => fileURLToPath(new URL(`../../${path}`, import.meta.url));
const page = readFileSync(root('docs/embedding.md'), 'utf8');
const blocks = [...page.matchAll(/<!-- file: (\S+) -->\n```\w*\n([\s\S]*?)```/g)].map(([, path, code]) => ({ path: path!, code: code! }));

describe('docs/embedding.md shows the code test:packages runs', () => {
  it('quotes every file of both example apps', () => {
    expect(blocks.map((b) => b.path)).toEqual(
      expect.arrayContaining([
        'examples/nest-app/src/charge.handler.ts',
        'examples/nest-app/src/email.handler.ts',
        'examples/nest-app/src/app.module.ts',
        'examples/nest-app/src/publish.ts',
        'examples/nest-app/src/main.ts',
        'examples/cdk-app/src/orders-stack.ts',
        'examples/cdk-app/src/main.ts',
      ]),
    );
  });

  it.each(blocks.map((b) => [b.path, b.code]))('%s is quoted exactly as it is in the repository', (path, code) => {
    expect(code, `docs/embedding.md's block for ${path} differs from the file: run npm run docs:examples`).toBe(readFileSync(root(path), 'utf8'));
  });
});
