import { violationsOf } from './invariants.js';
import { runScenario } from './run-scenario.js';
import type { Scenario } from './scenario.js';

/** The most candidate runs one shrink may take: each is a whole scenario's run (milliseconds). */
const MAX_RUNS = 400;

/** Whether the scenario's run still breaks `invariant`. */
async function stillBreaks(scenario: Scenario, invariant: string): Promise<boolean> {
  return violationsOf(await runScenario(scenario)).some((violation) => violation.invariant === invariant);
}

/** Simpler versions of a scenario, the biggest cuts first: halves of its messages, then one message, then each fault and feature off, then shorter scripts. */
function* candidates(scenario: Scenario): Generator<Scenario> {
  const { messages } = scenario;
  for (let size = Math.floor(messages.length / 2); size >= 1; size = Math.floor(size / 2)) {
    for (let start = 0; start + size <= messages.length; start += size) {
      yield { ...scenario, messages: [...messages.slice(0, start), ...messages.slice(start + size)] };
    }
  }
  for (const kind of ['refused', 'answerLost', 'duplicate', 'partial'] as const) {
    if (scenario.faults[kind] > 0) yield { ...scenario, faults: { ...scenario.faults, [kind]: 0 } };
  }
  if (scenario.outage) yield { ...scenario, outage: undefined };
  if (scenario.idempotency) yield { ...scenario, idempotency: undefined };
  for (let i = 0; i < messages.length; i++) {
    const outcomes = messages[i]!.outcomes;
    for (let drop = 0; drop < outcomes.length - 1; drop++) {
      const shorter = { ...messages[i]!, outcomes: [...outcomes.slice(0, drop), ...outcomes.slice(drop + 1)] };
      yield { ...scenario, messages: messages.map((message, j) => (j === i ? shorter : message)) };
    }
  }
}

/**
 * The smallest scenario found that still breaks `invariant`: greedy, taking the first
 * simpler candidate that still breaks it and starting again from there, until none does
 * or `MAX_RUNS` runs are spent. The seed stays (it drives the faults' and the jitter's
 * draws), so a cut can make the violation vanish; the search only keeps cuts that do not.
 */
export async function shrinkScenario(scenario: Scenario, invariant: string): Promise<{ scenario: Scenario; runs: number }> {
  let current = scenario;
  let runs = 0;
  for (let progress = true; progress && runs < MAX_RUNS;) {
    progress = false;
    for (const candidate of candidates(current)) {
      if (++runs > MAX_RUNS) break;
      if (await stillBreaks(candidate, invariant)) {
        current = candidate;
        progress = true;
        break;
      }
    }
  }
  return { scenario: current, runs };
}
