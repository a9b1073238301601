import type { StatementSync } from 'node:sqlite';

interface PersistenceManager {
  db: { prepare(sql: string): StatementSync };
  updateMessageReady(messageId: string): void;
}

const readyStatements = new WeakMap<PersistenceManager, StatementSync>();

/**
 * fauxqs 2.4.1's persistent store loses a message made visible again by
 * `ChangeMessageVisibility` with a timeout of 0: it takes the message out of flight, then
 * writes NULL into `approximate_receive_count`, a NOT NULL column, and throws before it
 * puts the message back; the caller gets an error and the message is in no list.
 * SQS keeps the message, and its receive count. This makes the write do that: only the
 * receipt handle and the visibility deadline are cleared. Only the suites that restart the
 * emulator from a data directory use fauxqs's persistence.
 */
export async function keepMessagesMadeVisibleAgain(): Promise<void> {
  const module = (await import(new URL('./persistence.js', import.meta.resolve('fauxqs')).href)) as {
    PersistenceManager?: { prototype: PersistenceManager };
  };
  const prototype = module.PersistenceManager?.prototype;
  if (!prototype)
    throw new Error('fauxqs no longer has PersistenceManager in dist/persistence.js: check whether its visibility-0 bug is fixed, then drop this patch');
  prototype.updateMessageReady = function updateMessageReady(this: PersistenceManager, messageId: string) {
    let statement = readyStatements.get(this);
    if (!statement) {
      statement = this.db.prepare('UPDATE sqs_messages SET receipt_handle = NULL, visibility_deadline = NULL WHERE message_id = ?');
      readyStatements.set(this, statement);
    }
    statement.run(messageId);
  };
}
