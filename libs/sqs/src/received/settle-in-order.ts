import type { Message } from '@aws-sdk/client-sqs';
import { GroupSequencer, type Settled } from '../delivery/group-sequencer.js';
import { InFlightLimit } from '../receive/in-flight-limit.js';

/** What `settleInOrder` does with one message: run it to its outcome, or give it back unrun. */
export interface SettleActions {
  run(message: Message): Promise<Settled>;
  giveBack(message: Message): Promise<Settled>;
}

const idOf = (message: Message) => message.MessageId ?? '';

/**
 * Runs a batch at most `limit` at a time and answers which messages stay in the queue. On
 * a FIFO queue each group goes through the worker's own `GroupSequencer`: in order, and
 * stopping at its first message that stays, the group's later messages given back unrun
 * so none overtakes it (what Lambda asks of a FIFO batch's failures).
 */
export async function settleInOrder(messages: readonly Message[], fifo: boolean, limit: number, actions: SettleActions): Promise<Set<string>> {
  const stays = new Set<string>();
  const lanes = new InFlightLimit(limit);
  const run = async (message: Message): Promise<Settled> => {
    while (lanes.reserve(1) === 0) await lanes.whenFree();
    try {
      const settled = await actions.run(message);
      if (settled === 'stays') stays.add(idOf(message));
      return settled;
    } finally {
      lanes.release(1);
    }
  };
  if (!fifo) {
    await Promise.all(messages.map(run));
    return stays;
  }
  const groups = new GroupSequencer();
  // Counted as staying before the give-back is tried: a give-back that fails still leaves
  // the message in the queue, and reporting it done would have Lambda delete it unrun.
  const giveBack = async (message: Message) => {
    stays.add(idOf(message));
    await actions.giveBack(message);
  };
  await Promise.all(
    messages.map((message) =>
      groups.run(message.Attributes?.MessageGroupId ?? '', {
        messageId: idOf(message),
        run: () => run(message),
        giveBack: () => giveBack(message),
        // Reported as staying: the receiver delivers it again.
        drop: () => giveBack(message),
      }),
    ),
  );
  return stays;
}
