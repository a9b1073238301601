import { readFileSync, writeFileSync, existsSync } from 'node:fs';

/** Benchmarks print one JSON document on stdout with --json; everything else goes to stderr. */
export function wantsJson(argv: readonly string[]): boolean {
  return argv.includes('--json');
}

export function numberFlag(argv: readonly string[], name: string, fallback: number): number {
  const index = argv.indexOf(name);
  if (index === -1) return fallback;
  const value = Number(argv[index + 1]);
  if (!Number.isFinite(value) || value <= 0) {
    throw new Error(`${name} needs a positive number, got ${JSON.stringify(argv[index + 1])}`);
  }
  return value;
}

export function progress(line: string): void {
  process.stderr.write(`${line}\n`);
}

export interface Column<Row> {
  header: string;
  value: (row: Row) => string | number;
}

export function markdownTable<Row>(rows: readonly Row[], columns: readonly Column<Row>[]): string {
  const header = `| ${columns.map((c) => c.header).join(' | ')} |`;
  const rule = `|${columns.map(() => '---').join('|')}|`;
  const body = rows.map((row) => `| ${columns.map((c) => String(c.value(row))).join(' | ')} |`);
  return [header, rule, ...body].join('\n');
}

/**
 * Replaces the text between `<!-- NAME:start -->` and `<!-- NAME:end -->` in a docs file,
 * so each benchmark owns its section and reruns never duplicate it.
 */
export function replaceDocsSection(path: string, name: string, content: string): void {
  const start = `<!-- ${name}:start -->`;
  const end = `<!-- ${name}:end -->`;
  const current = existsSync(path) ? readFileSync(path, 'utf8') : '';
  const block = `${start}\n${content.trim()}\n${end}`;
  const from = current.indexOf(start);
  const to = current.indexOf(end);
  const next = from !== -1 && to > from ? current.slice(0, from) + block + current.slice(to + end.length) : `${current.trimEnd()}\n\n${block}\n`;
  writeFileSync(path, next);
}

/**
 * The end of a fault run: its table into its docs section (with the command that made it),
 * the table or `{ reports, failures }` (with --json) on stdout, and exit 1 on any failure.
 */
export function finishRun(
  argv: readonly string[],
  run: { script: string; doc: string; section: string; table: string; reports: unknown[]; failures: string[] },
): void {
  const command = `npm run ${run.script}${argv.length ? ` -- ${argv.join(' ')}` : ''}`;
  replaceDocsSection(run.doc, run.section, `Measured with \`${command}\`:\n\n${run.table}`);
  if (wantsJson(argv)) process.stdout.write(`${JSON.stringify({ reports: run.reports, failures: run.failures }, null, 2)}\n`);
  else process.stdout.write(`${run.table}\n`);
  if (run.failures.length > 0) {
    progress(`FAILED:\n${run.failures.join('\n')}`);
    process.exit(1);
  }
}
