import type { buildApp } from 'fauxqs';

type BuildAppOptions = NonNullable<Parameters<typeof buildApp>[0]>;
type Stores = NonNullable<BuildAppOptions['stores']>;

/** The emulator's stores, and a way to bring its clocks up to now. */
export interface EmulatorStores {
  /** What `buildApp` is given, so that the stores are these. */
  stores: Stores | undefined;
  /**
   * Moves every message whose visibility timeout or delay has run out back to visible, as
   * SQS does by the clock. fauxqs does it only on a receive or while a long poll waits, so
   * without this `ApproximateNumberOfMessagesNotVisible` of a queue nobody polls (a DLQ)
   * never falls. A no-op when the stores could not be reached.
   */
  catchUp(): void;
}

interface StoreClass {
  new (): unknown;
}

/**
 * fauxqs's own store classes, from its modules beside its entry point: its package exports
 * only `buildApp`, which makes the stores itself and keeps them. Should a release move
 * them, the emulator runs as before, with fauxqs's lazy clock.
 */
export async function emulatorStores(): Promise<EmulatorStores> {
  try {
    const entry = import.meta.resolve('fauxqs');
    const load = async (path: string, name: string) => {
      const module = (await import(new URL(path, entry).href)) as Record<string, StoreClass>;
      return module[name];
    };
    const [Sqs, Sns, S3] = await Promise.all([
      load('./sqs/sqsStore.js', 'SqsStore'),
      load('./sns/snsStore.js', 'SnsStore'),
      load('./s3/s3Store.js', 'S3Store'),
    ]);
    if (!Sqs || !Sns || !S3) return { stores: undefined, catchUp: () => undefined };
    const sqsStore = new Sqs() as Stores['sqsStore'] & { processAllTimers?: () => void };
    const stores = { sqsStore, snsStore: new Sns(), s3Store: new S3() } as Stores;
    return { stores, catchUp: () => sqsStore.processAllTimers?.() };
  } catch {
    return { stores: undefined, catchUp: () => undefined };
  }
}
