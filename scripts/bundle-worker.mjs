// Bundles the compiled worker app (apps/worker/dist/main.js, from `tsc -b`) into one file,
// apps/worker/dist/bundle.js: what `npm start`, the demo, the tests and the image run.
// A worker start loaded about 2,300 modules (Nest, Express, rxjs, the AWS SDK, zod), and
// resolving, reading and linking them cost more CPU than the rest of the start. One file
// starts with about a fifth less CPU.
//
// Left out of the bundle and loaded from node_modules when used:
// - the local stack (`@requeue/local-aws`, `@requeue/infra`: the emulator and aws-cdk-lib),
//   imported only when no queue URL is set, and absent from the image;
// - the OpenTelemetry Node SDK, imported only with tracing on (its gRPC exporter reads
//   .proto files next to its own modules);
// - packages Nest imports only if installed (microservices, websockets, class-validator),
//   which the worker does not install.
// Optional peers (`@redis/client`, DynamoDB, Powertools) are found at run time by
// `require`, from the bundle's folder, as they were from the library's.
//
// Usage: node scripts/bundle-worker.mjs [--force]. Without --force, a bundle newer than
// every file it was built from is kept.
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import './require-node.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const entry = `${root}apps/worker/dist/main.js`;
const outfile = `${root}apps/worker/dist/bundle.js`;
const inputsFile = `${root}apps/worker/dist/bundle.inputs.json`;

const LOADED_WHEN_USED = ['@requeue/local-aws', '@requeue/infra', '@opentelemetry/sdk-node'];

/**
 * Whether the bundle is newer than every file it was built from (as recorded at its last
 * build) and than the last install: npm gives the files it installs a fixed old date.
 */
function upToDate() {
  if (!existsSync(outfile) || !existsSync(inputsFile)) return false;
  const built = statSync(outfile).mtimeMs;
  const inputs = [...JSON.parse(readFileSync(inputsFile, 'utf8')), 'node_modules/.package-lock.json'];
  return inputs.every((input) => existsSync(`${root}${input}`) && statSync(`${root}${input}`).mtimeMs <= built);
}

/** A package the worker does not install, imported by one that tries it: left as an import that fails at run time, as it would unbundled. */
const notInstalled = {
  name: 'not-installed',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.pluginData === 'probe' || args.path.startsWith('node:')) return undefined;
      const found = await build.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, pluginData: 'probe' });
      return found.errors.length > 0 ? { path: args.path, external: true } : found;
    });
  },
};

/**
 * esbuild escapes every non-ASCII character of the code (its default `charset`), but not of
 * the comments it keeps (a dash, an ellipsis, a locale's name). One such character makes
 * V8 hold the whole source as a two-byte string: each start decoded and scanned 6.5 MB of
 * it, about 70 ms of CPU more than an ASCII-only bundle. Each is replaced with `?`, and the
 * texts without their comments (esbuild's whitespace minifier drops them) must be the same:
 * proof that only comments changed.
 */
async function asciiOnly(code, transform) {
  const ascii = code.replace(/[^\x00-\x7f]/g, '?');
  if (ascii === code) return code;
  const [before, after] = await Promise.all([code, ascii].map((text) => transform(text, { minifyWhitespace: true, format: 'esm', keepNames: true })));
  if (before.code !== after.code) throw new Error('bundle-worker: a non-ASCII character outside a comment; the bundle was not written');
  return ascii;
}

async function bundle() {
  const { build, transform } = await import('esbuild');
  const result = await build({
    absWorkingDir: root,
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    // Nest's logs name modules and classes, and without keepNames a class renamed to avoid a
    // clash in the bundle's scope (`AppModule2`) would show there. It costs a call per
    // function the code creates; alternating runs of the batch bench showed no difference.
    keepNames: true,
    external: LOADED_WHEN_USED,
    plugins: [notInstalled],
    // CommonJS modules in an ES module bundle call require() for Node's own modules.
    banner: { js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);" },
    metafile: true,
    write: false,
    logLevel: 'warning',
  });
  writeFileSync(outfile, await asciiOnly(result.outputFiles[0].text, transform));
  writeFileSync(inputsFile, JSON.stringify(Object.keys(result.metafile.inputs)));
}

if (!existsSync(entry)) {
  process.stderr.write(`bundle-worker: ${entry} is missing: build the worker first (node scripts/build.mjs apps/worker)\n`);
  process.exit(1);
}
if (process.argv.includes('--force') || !upToDate()) await bundle();
