// What the access line says of a request's query string (docs/decisions.md#logs). A query string holds whatever
// its client put there: a GraphQL document with literal values in it, its variables (a secret's value among
// them, in a mutation sent by GET and refused with 405), a key pasted into a URL by mistake. The line keeps the
// values that say which request it was, and of every other parameter its name only.

/** What stands in the line for a value it does not show. */
export const REDACTED = '[redacted]';

/**
 * The parameters that name a GraphQL request sent by GET: its operation and its trusted document. Never its
 * document's text (literal values), its variables or its extensions.
 */
export const GRAPHQL_NAMING_PARAMETERS: ReadonlySet<string> = new Set(['operationName', 'documentId']);

/** A parameter's name as URLSearchParams reads it (`+` a space, `%XX` its byte); as sent where that fails. */
function decodedName(name: string): string {
  if (!name.includes('%') && !name.includes('+')) return name;
  try {
    return decodeURIComponent(name.replaceAll('+', ' '));
  } catch {
    return name;
  }
}

/**
 * `url` (a request target: path and query string) as the access line logs it: the parameters `shown` names
 * with their values as sent, every other one as `name=[redacted]`, in their order. `shown`: a REST route's
 * declared query parameters, GRAPHQL_NAMING_PARAMETERS for `/graphql`; none (a path no route serves): no value
 * is shown.
 */
export function loggablePath(url: string | undefined, shown: ReadonlySet<string> | undefined): string | undefined {
  const at = url?.indexOf('?') ?? -1;
  if (at < 0) return url;
  let query = '';
  for (const pair of url!.slice(at + 1).split('&')) {
    if (pair === '') continue;
    const equals = pair.indexOf('=');
    const name = equals < 0 ? pair : pair.slice(0, equals);
    query += `${query === '' ? '' : '&'}${shown?.has(decodedName(name)) ? pair : `${name}=${REDACTED}`}`;
  }
  return url!.slice(0, at + 1) + query;
}
