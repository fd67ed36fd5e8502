// Comparing response texts byte for byte, with a failure message that shows where they part.

/** `'identical'`, or the first offset at which `actual` differs from `expected`, with 60 characters around it. */
export function textDifference(actual: string, expected: string): string {
  if (actual === expected) return 'identical';
  let at = 0;
  while (at < actual.length && actual[at] === expected[at]) at++;
  const around = (text: string) => `…${text.slice(Math.max(0, at - 60), at + 60)}…`;
  return `differs at ${at}: got ${around(actual)}, expected ${around(expected)}`;
}

/** What a byte-exact check compares: status, content type, and `'identical'` or where the body parts from `expected`. */
export async function textSummary(response: Response, expected: string) {
  return { status: response.status, type: response.headers.get('content-type'), body: textDifference(await response.text(), expected) };
}
