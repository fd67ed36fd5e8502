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
import { expectSameRows, importedRows as rows, type Rows } from './support/imported-rows.ts';

type Json = any;
const DEPLOYMENTS = 2500;
const LONG = { timeout: 300_000 };

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
