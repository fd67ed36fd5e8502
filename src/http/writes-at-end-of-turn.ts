// Answers finished during one turn of the event loop are written to their sockets together, at the end of the
// turn (setImmediate runs after the turn's I/O callbacks and their promises). Each write to a socket wakes the
// reader on the other end if it is asleep; writes that follow one another closely find it awake. On a machine
// whose clients (a proxy, a sidecar, a load generator) share the cores, a wake-up per answer was 17% of the CPU
// of a `{ __typename }`; written together, the requests that arrived together pay one
// (docs/performance.md#answers-written-together). An answer waits at most for the other callbacks of its turn.
const pending: Array<() => void> = [];
let scheduled = false;

function writePending(): void {
  scheduled = false;
  // Writes queued while these run (none today: writing is synchronous) go to the next turn.
  const writes = pending.splice(0);
  for (const write of writes) write();
}

/**
 * Runs `write` at the end of this turn of the event loop, with the other writes of the turn; resolves once it
 * has run, or rejects with what it threw (without stopping the others).
 */
export function writeAtEndOfTurn(write: () => void): Promise<void> {
  return new Promise((resolve, reject) => {
    pending.push(() => {
      try {
        write();
        resolve();
      } catch (error) {
        reject(error);
      }
    });
    if (!scheduled) {
      scheduled = true;
      setImmediate(writePending);
    }
  });
}
