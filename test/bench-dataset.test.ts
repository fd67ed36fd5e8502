// The benchmark's dataset generator must keep producing documents the importer accepts (npm run bench:data
// loads 100,000 deployments through it; a drift would only show there, minutes in).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseDocument, deploymentsOf, sizeAt, tenantId } from '../bench/dataset.ts';
import { importDocumentSchema } from '../src/import/document.schema.ts';
import { importDocument } from '../src/import/importer.ts';
import { newCipher } from './support/fixtures.ts';
import { createTestDatabase, type TestDatabase } from './support/test-database.ts';

let db: TestDatabase;
beforeAll(async () => { db = await createTestDatabase(); });
afterAll(async () => { await db?.drop(); });

describe('bench/dataset.ts', () => {
  it('generates deterministic documents that import, with every resource-spec field populated', async () => {
    const size = sizeAt(0.001);
    const { perTenant: _perTenant, ...base } = baseDocument(size);
    const deployments = deploymentsOf(0, 0, 5, size);
    expect(deploymentsOf(0, 0, 5, size)).toEqual(deployments);
    const spec = deployments[0]!.source_config.resource_spec as Record<string, unknown>;
    expect(Object.entries(spec).filter(([, value]) => value === null || (Array.isArray(value) && value.length === 0))).toEqual([]);

    const cipher = newCipher();
    await importDocument(db.orm.em, importDocumentSchema.parse(base), cipher);
    const summary = await importDocument(db.orm.em, importDocumentSchema.parse({ deployments }), cipher);
    expect(summary.created).toBeGreaterThan(5);
    const rows = await db.query<{ n: number }>('select count(*)::int as n from deployment where tenant_id = $1', [tenantId(0)]);
    expect(rows).toEqual([{ n: 5 }]);
  });
});
