// A deployment's entity tag: its version (bumped by a trigger on every change of its row), and whether the
// representation shows secret values, since a masked and a revealed body of the same version are different
// representations (RFC 9110 §8.8.3: a strong tag names exactly one). Both name the same version for If-Match.

export function etagOf(version: number, revealsSecrets: boolean): string {
  return `"${version}${revealsSecrets ? '' : '-masked'}"`;
}

/**
 * Whether an If-Match field value lets a write of a deployment at `version` go ahead (RFC 9110 §13.1.1):
 * `*` (it exists), or a strong tag of that version in the list, as writes and GraphQL give it or as a GET's
 * ETag carries it. A weak tag never matches (strong comparison).
 */
export function ifMatchAllows(ifMatch: string, version: number): boolean {
  const value = ifMatch.trim();
  if (value === '*') return true;
  for (const tag of value.split(',')) {
    // A GET's tag adds its answer's hash (runner/entity-tags.ts): `"7-masked-<hash>"` names version 7 too.
    const match = /^"(\d+)(?:-masked)?(?:-[0-9a-f]+)?"$/.exec(tag.trim());
    if (match && Number(match[1]) === version) return true;
  }
  return false;
}
