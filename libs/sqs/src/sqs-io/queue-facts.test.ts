import { describe, expect, it } from 'vitest';
import { deadLetterRoomProblem } from './queue-facts.js';

describe('deadLetterRoomProblem', () => {
  it("is silent when the queue's limit leaves 8 KiB under its DLQ's, as RetryingQueue sets them", () => {
    expect(deadLetterRoomProblem({ maximumMessageSize: 1_040_384, deadLetterMaximumMessageSize: 1_048_576 })).toBeUndefined();
  });

  it('says what to set when a message as large as the queue takes would leave its dead letter no room for its reason', () => {
    const problem = deadLetterRoomProblem({ maximumMessageSize: 1_048_576, deadLetterMaximumMessageSize: 1_048_576 });
    expect(problem).toContain("Set the queue's MaximumMessageSize to at most 1040384 (RetryingQueue does)");
    expect(deadLetterRoomProblem({ maximumMessageSize: 262_144, deadLetterMaximumMessageSize: 262_144 })).toContain("or the DLQ's to 270336");
  });
});
