// The previous importer's reading and checking of a whole document, kept with it as the tests' oracle (see
// importer.ts here). The error and the wording of zod's issues are the current importer's.
import { formatPath, ImportError } from '../../../src/import/import-error.ts';
import { describeIssue } from '../../../src/import/validate-record.ts';
import { importDocumentSchema, type ImportDocument } from './document.schema.ts';

export { ImportError };

/** PostgreSQL cannot store U+0000 in text or jsonb; say where it is instead of failing mid-import. */
function rejectNulCharacters(value: unknown, path: PropertyKey[]): void {
  if (typeof value === 'string') {
    if (value.includes('\u0000')) throw new ImportError(formatPath(path), 'contains a NUL character (\\u0000), which PostgreSQL cannot store');
  } else if (Array.isArray(value)) {
    value.forEach((item, index) => rejectNulCharacters(item, [...path, index]));
  } else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      rejectNulCharacters(key, [...path, key]);
      rejectNulCharacters(item, [...path, key]);
    }
  }
}


export function parseImportDocument(json: string): ImportDocument {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch (error) {
    throw new ImportError('', `not valid JSON (${(error as Error).message})`);
  }
  rejectNulCharacters(raw, []);
  const result = importDocumentSchema.safeParse(raw);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    throw new ImportError(formatPath(issue.path), describeIssue(issue));
  }
  checkInternalConsistency(result.data);
  return result.data;
}

interface Keyed {
  path: string;
  key: string;
}

function rejectDuplicates(entries: readonly Keyed[], what: string): void {
  const seen = new Set<string>();
  for (const { path, key } of entries) {
    if (seen.has(key)) throw new ImportError(path, `duplicate ${what} "${key}"`);
    seen.add(key);
  }
}

const keyed = <T>(items: readonly T[], path: string, key: (item: T) => string): Keyed[] =>
  items.map((item, index) => ({ path: `${path}[${index}]`, key: key(item) }));

/** Checks that need the whole document but not the database. */
function checkInternalConsistency(doc: ImportDocument): void {
  rejectDuplicates(keyed(doc.tenants, 'tenants', (t) => t.id), 'tenant id');
  rejectDuplicates(keyed(doc.tags, 'tags', (t) => `${t.tenant_id}/${t.key}`), 'tag key (tenant/key)');
  rejectDuplicates(doc.tags.flatMap((tag, i) => keyed(tag.values, `tags[${i}].values`, (v) => v.id)), 'tag value id');
  doc.tags.forEach((tag, i) => rejectDuplicates(keyed(tag.values, `tags[${i}].values`, (v) => v.value), 'tag value'));
  rejectDuplicates(keyed(doc.integrations, 'integrations', (i) => i.id), 'integration id');
  doc.integrations.forEach((integration, i) =>
    rejectDuplicates(keyed(integration.repositories, `integrations[${i}].repositories`, (r) => String(r.id)), 'repository id'));
  rejectDuplicates(keyed(doc.deployments, 'deployments', (d) => d.id), 'deployment id');
  rejectDuplicates(doc.deployments.flatMap((d, i) => keyed(d.revisions, `deployments[${i}].revisions`, (r) => r.id)), 'revision id');
  doc.deployments.forEach((d, i) => {
    rejectDuplicates(keyed(d.secrets ?? [], `deployments[${i}].secrets`, (s) => s.name), 'secret name');
    rejectDuplicates(keyed(d.secret_references ?? [], `deployments[${i}].secret_references`, (s) => s.name), 'secret reference name');
    rejectDuplicates(keyed(d.tag_value_ids, `deployments[${i}].tag_value_ids`, (id) => id), 'tag value id');
  });
}
