// The streaming importer writes exactly the rows the previous, unit-of-work importer wrote (kept as the oracle in
// test/support/reference-importer), on a generated document of thousands of deployments that spans several
// batches and every shape a record may take; it reports the same summaries; a re-import rewrites no row; and
// the secrets it stored open through the API.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importDocument, type ImportSummary } from '../src/import/importer.ts';
import { importDocument as importWithReference } from './support/reference-importer/importer.ts';
import { parseImportDocument as parseWithReference } from './support/reference-importer/parse-document.ts';
import { startApp, type RunningApp } from './support/app-server.ts';
import { issueKey, newCipher } from './support/fixtures.ts';
import { changedDocument, generatedDocument, generatedTenant } from './support/generated-document.ts';
import { createTestDatabase, type TestDatabase } from './support/test-database.ts';
import type { SecretCipher } from '../src/modules/secrets/secret-cipher.ts';

type Json = any;
const DEPLOYMENTS = 2500;
const LONG = { timeout: 300_000 };

type Rows = Record<string, Map<string, string>>;

/**
 * Every row of the tables an import writes, by the key the document names it by, as text. Ids the importer
 * generates are left out, ciphertexts are opened (each import seals with a fresh IV), and of the timestamps the
 * importer sets itself only whether the row was updated after it was made.
 */
async function rows(db: TestDatabase, cipher: SecretCipher, { nullListsAsAbsent = false } = {}): Promise<Rows> {
  // The previous importer stored a resource spec's null lists of Kubernetes objects as absent when it created a
  // row and as null when it updated one (both read as null); after updates, rows are compared with them absent.
  const spec = nullListsAsAbsent
    ? `resource_spec - array(select key from jsonb_each(resource_spec) where value = 'null'
         and key in ('image_pull_secrets', 'volumes', 'volume_mounts', 'init_containers', 'sidecars'))`
    : 'resource_spec';
  const select = async (key: string, sql: string) =>
    new Map((await db.query<{ key: string; row: string }>(`select (${key})::text as key, row::text from (${sql}) row`)).map((r) => [r.key, r.row]));
  const secrets = await db.query<{ deployment_id: string; name: string; value_ciphertext: Buffer; key_fingerprint: string; rest: string }>(
    `select deployment_id::text, name, value_ciphertext, key_fingerprint, (tenant_id, position, key_fingerprint)::text as rest from secret`);
  return {
    tenant: await select('id', 'select id, name, updated_at > created_at as updated from tenant'),
    tag_key: await select('tenant_id, key', 'select tenant_id, key from tag_key'),
    tag_value: await select('id', 'select v.id, v.tenant_id, k.key, v.value from tag_value v join tag_key k on k.id = v.tag_key_id'),
    integration: await select('id', 'select id, tenant_id, kind, codehost, name, installation_id, updated_at > created_at as updated from integration'),
    source_repository: await select('integration_id, code_host_id', `select tenant_id, integration_id, code_host_id, name, owner, url, default_branch,
      updated_at > created_at as updated from source_repository`),
    deployment: await select('id', `select id, tenant_id, name, status, source, deployment_type, remote_reconciled, image_version,
      source_config, ${spec} as resource_spec, source_revision_config, latest_revision_id, active_revision_id, created_at, updated_at
      from deployment`),
    deployment_tag_value: await select('deployment_id, tag_value_id', 'select * from deployment_tag_value'),
    secret_reference: await select('deployment_id, name', 'select tenant_id, deployment_id, name, secret_name, secret_key, position from secret_reference'),
    revision: await select('id', 'select * from revision'),
    secret: new Map(secrets.map((s) => [`${s.deployment_id}/${s.name}`,
      `${s.rest} ${JSON.stringify(cipher.decrypt(s.value_ciphertext, { deploymentId: s.deployment_id, name: s.name }, s.key_fingerprint))}`])),
  };
}

const sorted = (table: Map<string, string>) => [...table].sort(([a], [b]) => (a < b ? -1 : 1));

function expectSameRows(actual: Rows, expected: Rows): void {
  for (const table of Object.keys(expected)) expect(sorted(actual[table]!), table).toEqual(sorted(expected[table]!));
}

/**
 * The summary an import must report, worked out from the rows before and after it: rows that appeared, that
 * went, and that hold other values; a deployment whose tag links changed counts as updated (once).
 */
function changesBetween(before: Rows, after: Rows): ImportSummary {
  const summary = { created: 0, updated: 0, deleted: 0 };
  const updatedDeployments = new Set<string>();
  for (const table of Object.keys(after).filter((t) => t !== 'deployment_tag_value')) {
    const [was, is] = [before[table]!, after[table]!];
    for (const [key, row] of is) {
      if (!was.has(key)) summary.created++;
      else if (was.get(key) !== row) table === 'deployment' ? updatedDeployments.add(key) : summary.updated++;
    }
    for (const key of was.keys()) if (!is.has(key)) summary.deleted++;
  }
  const links = (rows: Rows) => new Set(rows.deployment_tag_value!.keys());
  const [linksBefore, linksAfter] = [links(before), links(after)];
  for (const link of [...linksBefore].filter((l) => !linksAfter.has(l)).concat([...linksAfter].filter((l) => !linksBefore.has(l)))) {
    const deployment = link.slice(1, 37);
    if (before.deployment!.has(deployment)) updatedDeployments.add(deployment);
  }
  return { ...summary, updated: summary.updated + updatedDeployments.size };
}

/** Where each row is physically and which transaction wrote it: unchanged only if no statement rewrote it. */
async function rowVersions(db: TestDatabase): Promise<string[]> {
  const tables = ['tenant', 'tag_key', 'tag_value', 'integration', 'source_repository', 'deployment', 'deployment_tag_value', 'secret', 'secret_reference', 'revision'];
  const versions: string[] = [];
  for (const table of tables) versions.push(...(await db.query<{ v: string }>(`select '${table}' || ctid::text || xmin::text as v from ${table} order by 1`)).map((r) => r.v));
  return versions;
}

describe('the streaming importer, against the previous importer', () => {
  let streamed: TestDatabase;
  let reference: TestDatabase;
  const cipher = newCipher();
  const doc = generatedDocument(DEPLOYMENTS);
  const text = JSON.stringify(doc);
  const importBoth = async (document: Json): Promise<[ImportSummary, ImportSummary]> => [
    await importDocument(streamed.orm.em, JSON.stringify(document), cipher),
    await importWithReference(reference.orm.em.fork(), parseWithReference(JSON.stringify(document)), cipher),
  ];
  let first: [ImportSummary, ImportSummary];

  beforeAll(async () => {
    [streamed, reference] = await Promise.all([createTestDatabase(), createTestDatabase()]);
    first = await importBoth(doc);
  }, 300_000);
  afterAll(async () => {
    await Promise.all([streamed?.drop(), reference?.drop()]);
  });

  it('writes exactly the rows the previous importer wrote, and counts them the same', LONG, async () => {
    expect(text.length).toBeGreaterThan(8_000_000); // several batches
    expect(first[0]).toEqual(first[1]);
    expect(first[0].created).toBeGreaterThan(DEPLOYMENTS * 5);
    const actual = await rows(streamed, cipher);
    expectSameRows(actual, await rows(reference, cipher));
    expect(actual.deployment!.size).toBe(DEPLOYMENTS);
  });

  it('reports "no changes" on a re-import and rewrites no row', LONG, async () => {
    const before = await rowVersions(streamed);
    expect(await importDocument(streamed.orm.em, text, cipher)).toEqual({ created: 0, updated: 0, deleted: 0 });
    expect(await rowVersions(streamed)).toEqual(before);
  });

  // The previous importer's summary is no oracle here: it counted (and rewrote) as updated, on every import,
  // each deployment whose free-form maps jsonb keeps in another key order or whose resource spec has a null list.
  // The summary is checked against the rows that changed instead.
  it('applies a changed document exactly as the previous importer did, and counts the rows that changed', LONG, async () => {
    const before = await rows(streamed, cipher);
    const [summary] = await importBoth(changedDocument(doc));
    const after = await rows(streamed, cipher);
    expectSameRows(await rows(streamed, cipher, { nullListsAsAbsent: true }), await rows(reference, cipher, { nullListsAsAbsent: true }));
    expect(summary).toEqual(changesBetween(before, after));
    expect(summary.updated).toBeGreaterThan(100);
    expect(summary.deleted).toBeGreaterThan(10);
  });

  describe('through the API', () => {
    let app: RunningApp;
    beforeAll(async () => {
      app = await startApp(streamed.orm, cipher);
    });
    afterAll(() => app?.close());

    it('serves the imported secrets decrypted to a key that may read them', LONG, async () => {
      const key = await issueKey(streamed.orm.em, [generatedTenant(0)], true);
      const changed = changedDocument(doc);
      const ofTenant = changed.deployments.filter((d: Json) => d.tenant_id === generatedTenant(0)).slice(0, 40);
      for (const deployment of ofTenant) {
        const response = await fetch(`${app.url}/v2/deployments/${deployment.id.toLowerCase()}`, { headers: { 'x-api-key': key } });
        expect(response.status).toBe(200);
        expect((await response.json()).secrets).toEqual(deployment.secrets ?? []);
      }
    });
  });
});
