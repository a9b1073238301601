import { mutantNamed } from './mutants.js';

const mutant = mutantNamed(process.env['SIM_MUTANT'] ?? '');

interface Loaded {
  format?: string;
  source?: string | ArrayBuffer | Uint8Array;
}
type NextLoad = (url: string, context: object) => Promise<Loaded>;

/** Node's module load hook: the mutant's file comes back with its defect in place. */
export async function load(url: string, context: object, nextLoad: NextLoad): Promise<Loaded> {
  const loaded = await nextLoad(url, context);
  if (!url.endsWith(mutant.file) || loaded.source === undefined) return loaded;
  const source = typeof loaded.source === 'string' ? loaded.source : Buffer.from(loaded.source as Uint8Array).toString('utf8');
  if (!source.includes(mutant.find)) throw new Error(`mutant ${mutant.name}: ${mutant.file} no longer holds ${JSON.stringify(mutant.find)}`);
  return { ...loaded, source: source.replace(mutant.find, mutant.replace) };
}
