// If-Match on a deployment's writes. Its entity tag (../deployment-tag.ts) begins with its version, which a
// trigger bumps on every change of its row: that is what If-Match names.

/**
 * Whether an If-Match field value lets a write of a deployment at `version` go ahead (RFC 9110 §13.1.1):
 * `*` (it exists), or a strong tag of that version in the list, as writes and GraphQL give it or as a GET's
 * ETag carries it. A weak tag never matches (strong comparison).
 */
export function ifMatchAllows(ifMatch: string, version: number): boolean {
  const value = ifMatch.trim();
  if (value === '*') return true;
  for (const tag of value.split(',')) {
    // `"7-masked-<hash>"` names version 7, and so do `"7"` and `"7-masked"` (the tags before issue 52).
    const match = /^"(\d+)(?:-masked)?(?:-[0-9a-f]+)?"$/.exec(tag.trim());
    if (match && Number(match[1]) === version) return true;
  }
  return false;
}
