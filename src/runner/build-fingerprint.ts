// What the service's answers are made by: its source and its locked dependencies. An upgrade can change an
// answer's bytes without any change of data (a field's format, a library's serializer), so every entity tag
// includes this: a tag from another build never matches. Gateways running the same build agree on it.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const SOURCE_ROOT = fileURLToPath(new URL('..', import.meta.url));
const LOCK_FILE = path.join(SOURCE_ROOT, '..', 'package-lock.json');

let fingerprint: string | undefined;

/** Every file under src/ (names and bytes, in a fixed order) and package-lock.json, hashed once per process. */
export function buildFingerprint(): string {
  if (fingerprint !== undefined) return fingerprint;
  const hash = createHash('sha256');
  const files = fs.readdirSync(SOURCE_ROOT, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name))
    .sort();
  for (const file of [...files, LOCK_FILE]) {
    if (!fs.existsSync(file)) continue;
    hash.update(path.relative(SOURCE_ROOT, file)).update('\0').update(fs.readFileSync(file)).update('\0');
  }
  return (fingerprint = hash.digest('hex'));
}
