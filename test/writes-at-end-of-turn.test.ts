// Answers finished in one turn of the event loop are written together at its end (src/http/writes-at-end-of-turn.ts).
// What a client would notice if that went wrong: an answer written before the others of its turn were ready (no
// longer together), written out of order, never written, or lost because another answer's write failed.
import { describe, expect, it } from 'vitest';
import { writeAtEndOfTurn } from '../src/http/writes-at-end-of-turn.ts';

describe('writes at the end of the turn', () => {
  it('runs the writes of a turn after its callbacks, together and in order, and resolves each', async () => {
    const happened: string[] = [];
    const written = [1, 2, 3].map((n) => writeAtEndOfTurn(() => happened.push(`write ${n}`)));
    // Work finished later in the same turn (a promise, another I/O callback's answer) still comes first.
    await Promise.resolve().then(() => happened.push('rest of the turn'));
    written.push(writeAtEndOfTurn(() => happened.push('write 4')));
    expect(happened).toEqual(['rest of the turn']);
    await Promise.all(written);
    expect(happened).toEqual(['rest of the turn', 'write 1', 'write 2', 'write 3', 'write 4']);
  });

  it('rejects only the write that threw: the others of its turn are still written', async () => {
    const happened: string[] = [];
    const failure = new Error('socket gone');
    const outcomes = await Promise.allSettled([
      writeAtEndOfTurn(() => happened.push('first')),
      writeAtEndOfTurn(() => { throw failure; }),
      writeAtEndOfTurn(() => happened.push('third')),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((outcomes[1] as PromiseRejectedResult).reason).toBe(failure);
    expect(happened).toEqual(['first', 'third']);
  });

  it('writes what is queued in a later turn in that turn', async () => {
    await writeAtEndOfTurn(() => {});
    const happened: string[] = [];
    await writeAtEndOfTurn(() => happened.push('next turn'));
    expect(happened).toEqual(['next turn']);
  });
});
