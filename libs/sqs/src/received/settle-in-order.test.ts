import type { Message } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import type { Settled } from '../delivery/group-sequencer.js';
import { settleInOrder } from './settle-in-order.js';

const message = (id: string, group?: string): Message => ({ MessageId: id, ...(group ? { Attributes: { MessageGroupId: group } } : {}) });

/** Runs each message to what `outcomes` says (default gone), recording what ran and what was given back. */
function actions(outcomes: Record<string, Settled> = {}, options: { giveBackFails?: boolean } = {}) {
  const ran: string[] = [];
  const givenBack: string[] = [];
  let running = 0;
  let peak = 0;
  return {
    ran,
    givenBack,
    peak: () => peak,
    run: async (m: Message): Promise<Settled> => {
      running++;
      peak = Math.max(peak, running);
      await new Promise((resolve) => setImmediate(resolve));
      running--;
      ran.push(m.MessageId!);
      return outcomes[m.MessageId!] ?? 'gone';
    },
    giveBack: async (m: Message): Promise<Settled> => {
      givenBack.push(m.MessageId!);
      if (options.giveBackFails) throw new Error('ChangeMessageVisibility failed');
      return 'stays';
    },
  };
}

describe('settleInOrder', () => {
  it('stops a FIFO group at its first message that stays, giving the rest back unrun, while other groups go on', async () => {
    const act = actions({ a1: 'stays' });
    const batch = [message('a1', 'a'), message('b1', 'b'), message('a2', 'a'), message('b2', 'b'), message('a3', 'a')];
    const stays = await settleInOrder(batch, true, 10, act);
    expect([...stays].sort()).toEqual(['a1', 'a2', 'a3']);
    expect(act.ran.filter((id) => id.startsWith('b'))).toEqual(['b1', 'b2']);
    expect(act.ran).not.toContain('a2');
    expect(act.givenBack).toEqual(['a2', 'a3']);
  });

  it('reports a message whose give-back failed as staying: reported done, Lambda would delete it unrun', async () => {
    const act = actions({ a1: 'stays' }, { giveBackFails: true });
    const stays = await settleInOrder([message('a1', 'a'), message('a2', 'a')], true, 10, act);
    expect([...stays].sort()).toEqual(['a1', 'a2']);
  });

  it('runs at most `limit` messages at once on a standard queue, and reports the ones that stay', async () => {
    const act = actions({ m3: 'stays' });
    const batch = Array.from({ length: 10 }, (_, i) => message(`m${i}`));
    const stays = await settleInOrder(batch, false, 3, act);
    expect(act.peak()).toBe(3);
    expect(act.ran).toHaveLength(10);
    expect([...stays]).toEqual(['m3']);
  });
});
