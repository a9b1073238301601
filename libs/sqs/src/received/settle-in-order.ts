import type { Message } from '@aws-sdk/client-sqs';
import type { Settled } from '../delivery/group-sequencer.js';

/** What `settleInOrder` does with one message: run it to its outcome, or give it back unrun. */
export interface SettleActions {
  run(message: Message): Promise<Settled>;
  giveBack(message: Message): Promise<Settled>;
}

const idOf = (message: Message) => message.MessageId ?? '';

/**
 * Runs a batch at most `limit` at a time and answers which messages stay in the queue. On
 * a FIFO queue each message group runs in order and stops at its first message that
 * stays: the group's later messages are given back unrun and stay too, so none overtakes
 * it (what Lambda asks of a FIFO batch's failures).
 */
export async function settleInOrder(messages: readonly Message[], fifo: boolean, limit: number, actions: SettleActions): Promise<Set<string>> {
  const stays = new Set<string>();
  if (!fifo) {
    await eachWithLimit(messages, limit, async (message) => {
      if ((await actions.run(message)) === 'stays') stays.add(idOf(message));
    });
    return stays;
  }
  const groups = new Map<string, Message[]>();
  for (const message of messages) {
    const group = message.Attributes?.MessageGroupId ?? '';
    groups.set(group, [...(groups.get(group) ?? []), message]);
  }
  await eachWithLimit([...groups.values()], limit, async (group) => {
    for (const [index, message] of group.entries()) {
      if ((await actions.run(message)) === 'gone') continue;
      stays.add(idOf(message));
      for (const later of group.slice(index + 1)) {
        await actions.giveBack(later);
        stays.add(idOf(later));
      }
      return;
    }
  });
  return stays;
}

async function eachWithLimit<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}
