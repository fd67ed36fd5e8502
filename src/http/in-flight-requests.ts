// Requests being served, so that a shutdown can wait for them (and report readiness as gone meanwhile).
export class InFlightRequests {
  private count = 0;
  private waiters: Array<() => void> = [];
  /** Set when shutdown begins: /ready answers 503 and responses close their connections. */
  draining = false;

  get size(): number {
    return this.count;
  }

  begin(): void {
    this.count++;
  }

  end(): void {
    this.count--;
    if (this.count === 0) for (const wake of this.waiters.splice(0)) wake();
  }

  /** Resolves true once nothing is in flight, or false when `timeoutMs` passes first. */
  settled(timeoutMs: number): Promise<boolean> {
    if (this.count === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      this.waiters.push(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }
}
