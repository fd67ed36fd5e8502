// Checks one element of a document list (document-reader.ts) against its section's schema before anything
// is staged. Failures name the element's path in the document (`deployments[3].source_config.resource_spec.cpu`),
// as a check of the whole document would.
import type { z } from 'zod';
import { recordSchemas, type ImportedDeployment, type ImportedIntegration, type ImportedTag, type ImportedTenant } from './document.schema.ts';
import type { DocumentRecord } from './document-reader.ts';
import { formatPath, ImportError } from './import-error.ts';

export type ValidRecord =
  | { section: 'tenants'; index: number; value: ImportedTenant }
  | { section: 'tags'; index: number; value: ImportedTag }
  | { section: 'integrations'; index: number; value: ImportedIntegration }
  | { section: 'deployments'; index: number; value: ImportedDeployment };

/** Why PostgreSQL cannot store a string: U+0000, or half of a UTF-16 surrogate pair (which UTF-8 cannot encode). */
function unstorable(text: string): string | undefined {
  if (text.includes('\u0000')) return 'contains a NUL character (\\u0000), which PostgreSQL cannot store';
  if (!text.isWellFormed()) return 'contains an unpaired surrogate (\\ud800 to \\udfff), which PostgreSQL cannot store';
  return undefined;
}

/** Whether any string of `value`, keys included, cannot be stored (a walk without allocations: most records have none). */
function containsUnstorable(value: unknown): boolean {
  if (typeof value === 'string') return unstorable(value) !== undefined;
  if (value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.some(containsUnstorable);
  for (const key in value) if (containsUnstorable(key) || containsUnstorable((value as Record<string, unknown>)[key])) return true;
  return false;
}

/** Says where the string PostgreSQL cannot store is, instead of failing mid-import. */
function rejectUnstorable(value: unknown, path: PropertyKey[]): void {
  if (typeof value === 'string') {
    const problem = unstorable(value);
    if (problem) throw new ImportError(formatPath(path), problem);
  } else if (Array.isArray(value)) {
    value.forEach((item, index) => rejectUnstorable(item, [...path, index]));
  } else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      rejectUnstorable(key, [...path, key]);
      rejectUnstorable(item, [...path, key]);
    }
  }
}

export function describeIssue(issue: z.core.$ZodIssue): string {
  if (issue.code === 'unrecognized_keys') return `unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `"${k}"`).join(', ')}`;
  if (issue.code === 'invalid_type' && issue.message.includes('received undefined')) return 'is required';
  return issue.message;
}

export function validateRecord({ section, index, value, escapes }: DocumentRecord): ValidRecord {
  if (escapes && containsUnstorable(value)) rejectUnstorable(value, [section, index]);
  const result = recordSchemas[section].safeParse(value);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    throw new ImportError(formatPath([section, index, ...issue.path]), describeIssue(issue));
  }
  return { section, index, value: result.data } as ValidRecord;
}
