/**
 * `node --import <this file>` with `SIM_MUTANT=<name>`: plants that mutant's defect in the
 * engine's built code as it loads, for the mutation check. Fails loudly when the code the
 * mutant looks for is not there, so a refactor cannot quietly turn a mutant into a no-op.
 */
import { register } from 'node:module';

register('./mutant-hooks.js', import.meta.url);
