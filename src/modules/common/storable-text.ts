// Text PostgreSQL can hold, decided once for every string a write or a report takes
// (docs/decisions.md#text-and-json-the-database-can-hold): its `text` and `jsonb` hold no NUL character, and
// UTF-8 has no encoding for half of a UTF-16 surrogate pair, which a JSON string may carry (`"\ud800"`). Such
// text is refused where it is sent, never replaced: a secret's name or value changed on the way is wrong data
// (a name changed after its value was sealed with it cannot even be opened again), and failing in the database
// instead answered 500, or 503 as if the database were down (db/connection-loss.ts).

/** Why PostgreSQL cannot hold `text` (a 422 item's `error`), or undefined when it can. */
export function unstorableText(text: string): string | undefined {
  if (text.includes('\u0000')) return 'must not contain NUL characters';
  if (!text.isWellFormed()) return 'must not contain unpaired surrogates (U+D800 to U+DFFF)';
  return undefined;
}
