import { setTimeout as sleep } from 'node:timers/promises';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seededRandom, type Random } from '@requeue/retry/engine';
import { startFakeAgent } from '../support/ecs-agent-fake.js';
import { startEmulator, type Emulator } from '../support/emulator.js';
import { sendAll, simulation } from '../support/publish.js';
import { EcsService } from './ecs-service.js';
import { interruptionFigures, type InterruptionFigures } from './interruption-figures.js';
import { settled, simulationWorkerEnv } from './scenarios.js';

export interface InterruptionScenarioOptions {
  /** Spot interruptions to deliver; the load stops after the last one. */
  spotInterruptions: number;
  /** Real milliseconds per ECS second: handlers of 1-90 s, Spot's 120 s warning, cooldowns. @default 40 */
  secondMs?: number;
  /** Task scale-in protection in the workers (`WORKER_TASK_PROTECTION`). */
  protection: boolean;
  seed: number;
  /** @default 5 */
  maxTasks?: number;
  /** @default 4 */
  maxInFlight?: number;
  /** Mean ECS seconds between Spot interruptions. @default 40 */
  spotMeanSeconds?: number;
  onProgress?: (line: string) => void;
}

export interface InterruptionReport extends InterruptionFigures {
  protection: boolean;
  deadLettered: number;
  durationSeconds: number;
}

/** The stack's scaling, in ECS seconds: target tracking on visible messages per task, its cooldowns, and the scheduler's pass. */
const SCALING = { backlogPerTask: 4, scaleOutCooldown: 60, scaleInCooldown: 300, tick: 5 };
/** Spot's warning and the drain that fits inside it (QueueWorkerService's `spot` defaults). */
const SPOT = { warning: 120, drain: 105 };
/** How long a task stays protected once idle (WORKER_TASK_PROTECTION_IDLE_MS's default, in seconds). */
const IDLE_SECONDS = 10;

const between = (random: Random, min: number, max: number) => min + Math.floor(random() * (max - min + 1));

/**
 * A fleet of worker processes on the emulator, run as an ECS service on Fargate Spot would
 * run them: bursts of messages whose handlers take 1-90 s, target tracking on backlog per
 * task (scale-in stops only unprotected tasks, scale-out from zero), and Spot interruptions
 * at random moments (SIGTERM, then SIGKILL once the 120 s warning is out). Time is scaled:
 * an ECS second is `secondMs` real milliseconds. Ends once the queue is empty after the
 * last interruption, then accounts for every message, run and protection call.
 */
export async function runInterruptionScenario(options: InterruptionScenarioOptions): Promise<InterruptionReport> {
  const { secondMs = 40, maxTasks = 5, maxInFlight = 4, spotMeanSeconds = 40 } = options;
  const startedAt = Date.now();
  const random = seededRandom(options.seed);
  const emulator = await startEmulator();
  const agent = await startFakeAgent();
  let service: EcsService | undefined;
  try {
    // Many releases at shutdown each count a receive: the redrive must not take them.
    const queues = await emulator.createQueues({ visibilityTimeoutSeconds: 10, maxReceiveCount: 100 });
    service = new EcsService({
      dir: mkdtempSync(join(tmpdir(), 'requeue-interruptions-')),
      agent,
      spotWarningMs: SPOT.warning * secondMs,
      random,
      env: {
        ...simulationWorkerEnv(emulator, queues, maxInFlight),
        WORKER_DRAIN_TIMEOUT_MS: String(SPOT.drain * secondMs),
        WORKER_TASK_PROTECTION: options.protection ? 'on' : 'off',
        WORKER_TASK_PROTECTION_IDLE_MS: String(IDLE_SECONDS * secondMs),
      },
    });
    const published = new Set<string>();
    const load = { running: true };
    const producing = produce(emulator, queues.queueUrl, published, random, secondMs, load);
    const scaling = scale(emulator, queues.queueUrl, service, maxTasks, secondMs);
    for (let interrupted = 0; interrupted < options.spotInterruptions;) {
      await sleep(-Math.log(1 - random()) * spotMeanSeconds * secondMs);
      if (!service.interruptSpot()) continue;
      if (++interrupted % 10 === 0)
        options.onProgress?.(`Spot interruption ${interrupted}/${options.spotInterruptions}, ${service.tasks.length} tasks started`);
    }
    load.running = false;
    await producing;
    await settled(emulator, queues.queueUrl, 300_000);
    await scaling.stop();
    await service.stopAll();
    const deadLettered = (await emulator.drain(queues.dlqUrl)).length;
    const protectionCalls = options.protection ? agent.requests : [];
    return {
      protection: options.protection,
      ...interruptionFigures(service.tasks, published, protectionCalls, IDLE_SECONDS * secondMs),
      deadLettered,
      durationSeconds: (Date.now() - startedAt) / 1000,
    };
  } finally {
    for (const task of service?.tasks ?? []) if (task.exit === undefined) task.worker.child.kill('SIGKILL');
    await agent.close();
    await emulator.stop();
  }
}

/** Bursts of 5-40 messages every 60-240 s, each handler taking 1-90 s. */
async function produce(
  emulator: Emulator,
  queueUrl: string,
  published: Set<string>,
  random: Random,
  secondMs: number,
  load: { running: boolean },
): Promise<void> {
  while (load.running) {
    const burst = Array.from({ length: between(random, 5, 40) }, () => {
      const id = `job-${published.size + 1}`;
      published.add(id);
      return simulation(id, { outcome: 'ok', durationMs: between(random, 1, 90) * secondMs });
    });
    await sendAll(emulator.sqs, queueUrl, burst);
    await sleep(between(random, 60, 240) * secondMs);
  }
}

/**
 * Target tracking as the stack configures it: desired = visible ÷ backlog per task, out
 * after the scale-out cooldown, in after the scale-in one, up from zero on the first
 * visible message; every pass the scheduler retries a scale-in protected tasks held up.
 */
function scale(emulator: Emulator, queueUrl: string, service: EcsService, maxTasks: number, secondMs: number) {
  let stopped = false;
  const loop = (async () => {
    let lastOut = -Infinity;
    let lastIn = -Infinity;
    while (!stopped) {
      const { visible } = await emulator.depth(queueUrl);
      const want = Math.min(maxTasks, Math.ceil(visible / SCALING.backlogPerTask));
      const now = Date.now();
      const current = service.desiredCount;
      const fromZero = current === 0 && visible > 0;
      if (want > current && (fromZero || now - lastOut >= SCALING.scaleOutCooldown * secondMs)) {
        service.scaleTo(want);
        lastOut = now;
      } else if (want < current && now - lastIn >= SCALING.scaleInCooldown * secondMs) {
        service.scaleTo(want);
        lastIn = now;
      } else service.reconcile();
      await sleep(SCALING.tick * secondMs);
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
    },
  };
}
