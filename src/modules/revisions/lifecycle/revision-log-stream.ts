// One subscriber's stream of new lines of one revision's log. An append's NOTIFY carries the number of its last
// line, never the lines: the stream notes the highest number heard and, when its reader is ready, loads the
// lines after the last one it sent (a batch of up to LOG_BATCH, in line order, with the subscriber's filter).
// So nothing waits in memory but a number, however fast lines come or however slowly the client reads, and no
// line is sent twice or skipped: a notification missed (the LISTEN connection blinked) only delays lines until
// the next load, which the reconnection itself starts. Lines deleted by retention before they were read are gone.
import type { GraphQLError } from 'graphql';
import { LiveStream } from '../../deployments/live/live-stream.ts';
import type { LogLine } from './revision-logs.ts';

/** Most lines one event carries. */
export const LOG_BATCH = 1_000;

/** New lines, in line order. */
export interface LogBatch {
  lines: LogLine[];
}

/** The lines after `afterLine` that the subscriber's filter lets through, in line order, at most `take`. */
export type LoadLogLines = (afterLine: number, take: number) => Promise<LogLine[]>;

export class RevisionLogStream extends LiveStream<LogBatch> {
  private readonly load: LoadLogLines;
  /** The last line looked at (sent, or passed over by the filter). */
  private lastSeen: number;
  /** The highest line heard of. */
  private heard: number;
  /** Lines may have come unheard (a notification missed): look once more. */
  private recheck = false;
  /** Whether the stream knows where it starts (until then it only notes what it hears). */
  private started = false;
  private ready: LogBatch[] = [];

  constructor(load: LoadLogLines, onClose: () => void) {
    super(onClose);
    this.load = load;
    this.lastSeen = -1;
    this.heard = -1;
  }

  /** An append stored lines up to `lastLine`. */
  receive(lastLine: number): void {
    if (this.isEnding || lastLine <= this.heard) return;
    this.heard = lastLine;
    this.signal();
  }

  /** Where the stream starts, once known: the lines stored after it are loaded at once (and those heard of meanwhile). */
  startAfter(afterLine: number): void {
    this.lastSeen = afterLine;
    this.heard = Math.max(this.heard, afterLine);
    this.started = true;
    this.recheck = true;
    this.signal();
  }

  /** Nothing is lost with a missed notification: the lines are in the database; look again. */
  override missed(_notice: GraphQLError): void {
    if (this.isEnding) return;
    this.recheck = true;
    this.signal();
  }

  protected take(): LogBatch | undefined {
    return this.ready.shift();
  }

  protected hasWaiting(): boolean {
    return this.started && (this.recheck || this.heard > this.lastSeen);
  }

  protected async prepare(): Promise<void> {
    // Every line up to `heard` has committed (its NOTIFY came after the commit, and one revision's appends take
    // its lock one after the other): a load that is not full has looked at all of them.
    const heard = this.heard;
    this.recheck = false;
    const lines = await this.load(this.lastSeen, LOG_BATCH);
    if (!this.mayDeliver) return;
    const last = lines.at(-1)?.line ?? this.lastSeen;
    this.lastSeen = lines.length === LOG_BATCH ? last : Math.max(last, heard);
    if (lines.length > 0) this.ready.push({ lines });
  }

  protected drop(): void {
    this.ready = [];
  }
}
