#!/usr/bin/env node
// npm run docs:examples: refreshes every `<!-- file: path -->` code block in docs/embedding.md
// with the file it names, so the page shows exactly the code test:packages runs.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const page = `${root}docs/embedding.md`;
const text = readFileSync(page, 'utf8');
const quoted = text.replace(/(<!-- file: (\S+) -->\n```\w*\n)[\s\S]*?```/g, (_, head, path) => `${head}${readFileSync(`${root}${path}`, 'utf8')}\`\`\``);
writeFileSync(page, quoted);
process.stdout.write(quoted === text ? 'docs/embedding.md already quotes every example as it is\n' : 'docs/embedding.md: example blocks refreshed\n');
