// Small helpers for GraphQL tests over HTTP: error assertions, hand-made global ids, extra import documents.
import type { EntityManager } from '@mikro-orm/postgresql';
import { expect } from 'vitest';
import { importDocument } from '../../src/import/importer.ts';
import type { SecretCipher } from '../../src/modules/secrets/secret-cipher.ts';
import type { RunningApp } from './app-server.ts';
import { randomUUID } from 'node:crypto';
import { ACME, fixtureText } from './fixtures.ts';

/**
 * base64url("Type:id"), built by hand: for ids of objects that do not exist or of types that are no nodes.
 * Ids of real objects are always taken from the API's own `id` fields.
 */
export const handMadeGlobalId = (typename: string, id: string) => Buffer.from(`${typename}:${id}`, 'utf8').toString('base64url');

type Response = Awaited<ReturnType<RunningApp['graphql']>>;

/** Exactly one error with this `extensions.code` (and message, when given), no data; returns the error. */
export function expectGraphQLError(response: Response, code: string, message?: string | RegExp) {
  const context = JSON.stringify(response.body);
  expect(response.body.errors, context).toHaveLength(1);
  const [error] = response.body.errors;
  expect(error.extensions?.code, context).toBe(code);
  if (typeof message === 'string') expect(error.message).toBe(message);
  else if (message) expect(error.message).toMatch(message);
  expect(response.body.data ?? null, context).toBeNull();
  return error as { message: string; extensions: Record<string, unknown>; path?: unknown[] };
}

/** The data of a response that must have succeeded. */
export function dataOf(response: Response): any {
  expect(response.body.errors, JSON.stringify(response.body.errors)).toBeUndefined();
  expect(response.status).toBe(200);
  return response.body.data;
}

/** Types of the import document's JSON, as far as the tests read them. */
export interface DocRepository { id: number; name: string; owner: string; url: string; default_branch: string }
export interface DocIntegration {
  id: string; tenant_id: string; kind: 'codehost' | 'managed'; codehost: string; name: string; repositories: DocRepository[];
}
export interface DocTag { tenant_id: string; key: string; values: { id: string; value: string }[] }
export interface DocDeployment {
  id: string; tenant_id: string; name: string; source_config: { integration_id?: string | null; [key: string]: unknown };
  secrets?: { name: string; value: string }[]; tag_value_ids?: string[];
  latest_revision_id?: string | null; active_revision_id?: string | null;
  revisions?: { id: string; status: string; created_at: string }[];
  [key: string]: unknown;
}
export interface Doc {
  tenants?: { id: string; name: string }[]; tags?: DocTag[]; integrations?: DocIntegration[]; deployments?: DocDeployment[];
}

export const fixtureDocument = (): Doc => JSON.parse(fixtureText());

/**
 * `count` more deployments of ACME, copies of its fixture deployment without revisions, tags or secret
 * references, each newer than every fixture deployment: the first page is these, the highest `n` first.
 * `fields(n)` gives deployment `n` its name, secrets and whatever else differs.
 */
export function newerAcmeDeployments(count: number, fields: (n: number) => Partial<DocDeployment> & { name: string }): DocDeployment[] {
  const base = fixtureDocument().deployments!.find((d) => d.tenant_id === ACME)!;
  return Array.from({ length: count }, (_, n) => {
    const created = new Date(Date.UTC(2030, 0, 1, 0, n)).toISOString();
    return {
      ...structuredClone(base), id: randomUUID(), created_at: created, updated_at: created,
      revisions: [], latest_revision_id: null, active_revision_id: null, tag_value_ids: [], secret_references: [],
      ...fields(n),
    };
  });
}

/** Imports a document through the real parser and importer. */
export async function importExtra(em: EntityManager, cipher: SecretCipher, doc: Doc): Promise<void> {
  await importDocument(em.fork(), JSON.stringify(doc), cipher);
}
