// Reads a `text/event-stream` body as it arrives: each event (its `event` and `data` fields, as a browser's
// EventSource joins them) or comment block (`:` lines, the heartbeats), until the body ends. The tests' stream
// client (event-stream.ts) and the wake-up benchmark (bench/listener-wakeup.ts) both read streams with it.

export interface StreamEvent {
  event: string;
  data: string;
}

/** Calls `onEvent` for each event and `onComment` for each comment block of `body`; resolves when it ends. */
export async function readServerSentEvents(
  body: ReadableStream<Uint8Array>, onEvent: (event: StreamEvent) => void, onComment: () => void = () => {},
): Promise<void> {
  const decoder = new TextDecoder();
  let text = '';
  const reader = body.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    text += decoder.decode(read.value, { stream: true });
    for (let end = text.indexOf('\n\n'); end >= 0; end = text.indexOf('\n\n')) {
      const lines = text.slice(0, end).split('\n');
      text = text.slice(end + 2);
      if (lines.every((line) => line.startsWith(':'))) {
        onComment();
        continue;
      }
      const field = (name: string) => lines.filter((line) => line.startsWith(`${name}:`)).map((line) => line.slice(name.length + 1).trimStart()).join('\n');
      onEvent({ event: field('event') || 'message', data: field('data') });
    }
  }
}
