// A JSON answer's text as node:http should be given it. Node writes a string body by joining it to the
// headers' text and encoding the joined string into storage it allocates for the write; past 16 KB of storage
// (5,461 characters: it reserves 3 bytes a character) that storage is a new zero-filled backing store, after
// V8 has flattened the joined string: two whole copies of the body, and memory to clear, before the socket
// sees a byte. A Buffer is encoded once, into memory nobody clears, and written as it is beside the headers.
// For a REST page of 100 (474 KB) that was 9% of the service's CPU per request; a small answer, the most
// common, stays a string: one write, headers and body together, from Node's stack
// (docs/performance.md#large-answers-written-as-bytes).
const LARGEST_STRING_BODY = 5461;

/** `text` as the body to write: as it is when small, else its UTF-8 bytes. */
export const bodyBytes = (text: string): string | Buffer<ArrayBuffer> => (text.length > LARGEST_STRING_BODY ? Buffer.from(text) : text);
