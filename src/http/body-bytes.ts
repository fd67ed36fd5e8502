// A JSON answer's text as node:http should be given it. Node writes a string body by joining it to the
// headers' text and encoding the joined string into storage it allocates for the write: on its stack up to
// 16 KB (5,461 characters, at the 3 bytes a character it reserves), past that on the heap, once V8 has
// flattened the join (a whole copy of the body) and Node has measured it. A Buffer is encoded once and written
// as it is, beside the headers.
// For a REST page of 100 (474 KB) a bare node:http handler spent about 100 µs less CPU per answer (1.22 ms
// with its JSON.stringify, 1.12 as bytes). A small answer, the most common, stays a string: one write, headers
// and body together, from Node's stack (docs/performance.md#large-answers-written-as-bytes).
export const LARGEST_STRING_BODY = 5461;

/** `text` as the body to write: as it is when small, else its UTF-8 bytes. */
export const bodyBytes = (text: string): string | Buffer<ArrayBuffer> => (text.length > LARGEST_STRING_BODY ? Buffer.from(text) : text);
