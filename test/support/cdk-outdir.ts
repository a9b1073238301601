import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

// A vitest setup file. A CDK App given no outdir synthesizes into a fresh temporary
// directory of its own and leaves it behind: one per test file here, removed afterwards.
const outdir = mkdtempSync(join(tmpdir(), 'requeue-cdk-test-'));
process.env.CDK_OUTDIR = outdir;
afterAll(() => rmSync(outdir, { recursive: true, force: true }));
