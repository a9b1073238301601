import { describe, expect, it } from 'vitest';
import { GroupSequencer, type Settled } from './group-sequencer.js';

/** A delivery that records what the sequencer did with it; `finish` ends its run. */
function delivery(messageId: string, log: string[]) {
  let finish: (settled: Settled) => void = () => undefined;
  return {
    entry: {
      messageId,
      run: () => {
        log.push(`run ${messageId}`);
        return new Promise<Settled>((resolve) => (finish = resolve));
      },
      giveBack: async () => void log.push(`give back ${messageId}`),
      drop: async () => void log.push(`drop ${messageId}`),
    },
    finish: (settled: Settled) => finish(settled),
  };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('GroupSequencer', () => {
  it("runs a group's messages one after another, and gives back those behind one that stays", async () => {
    const sequencer = new GroupSequencer();
    const log: string[] = [];
    const [a, b, c] = ['a', 'b', 'c'].map((id) => delivery(id, log));
    const done = [a, b, c].map(({ entry }) => sequencer.run('g', entry));
    await turn();
    a!.finish('gone');
    await turn();
    b!.finish('stays');
    await Promise.all(done);
    expect(log).toEqual(['run a', 'run b', 'give back c']);
  });

  it('drops the deliveries waiting behind the head when SQS delivers one of its messages again, and goes on with the new ones in order', async () => {
    const sequencer = new GroupSequencer();
    const log: string[] = [];
    // a's visibility ran out while it ran: SQS delivers a and b again, after the first b.
    const [a, b, aAgain, bAgain] = ['a', 'b', 'a', 'b'].map((id) => delivery(id, log));
    const done = [a, b, aAgain, bAgain].map(({ entry }) => sequencer.run('g', entry));
    await turn();
    expect(log).toEqual(['run a', 'drop b']);
    expect(sequencer.waitingBehindHeads).toBe(2);
    a!.finish('gone');
    await turn();
    aAgain!.finish('gone');
    await turn();
    bAgain!.finish('gone');
    await Promise.all(done);
    expect(log).toEqual(['run a', 'drop b', 'run a', 'run b']);
    expect(sequencer.waitingBehindHeads).toBe(0);
  });
});
