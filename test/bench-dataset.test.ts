// The benchmark's dataset generator must keep producing documents the importer accepts (npm run bench:data
// and npm run bench:import load 100,000 deployments through it; a drift would only show there, a minute in).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BENCH_TENANTS, deploymentsOf, sizeAt, tenantId } from '../bench/dataset.ts';
import { datasetDocument } from '../bench/dataset-document.ts';
import { importDocument } from '../src/import/importer.ts';
import { newCipher } from './support/fixtures.ts';
import { createTestDatabase, type TestDatabase } from './support/test-database.ts';

let db: TestDatabase;
beforeAll(async () => { db = await createTestDatabase(); });
afterAll(async () => { await db?.drop(); });

describe('bench/dataset.ts', () => {
  it('generates deterministic documents that import, with every resource-spec field populated', async () => {
    const size = sizeAt(0.001);
    const deployments = deploymentsOf(0, 0, 5, size);
    expect(deploymentsOf(0, 0, 5, size)).toEqual(deployments);
    const spec = deployments[0]!.source_config.resource_spec as Record<string, unknown>;
    expect(Object.entries(spec).filter(([, value]) => value === null || (Array.isArray(value) && value.length === 0))).toEqual([]);

    const summary = await importDocument(db.orm.em, datasetDocument(size), newCipher());
    expect(summary.created).toBeGreaterThan(size.deployments);
    const rows = await db.query<{ tenant_id: string; n: number }>('select tenant_id, count(*)::int as n from deployment group by 1 order by 1');
    expect(rows).toHaveLength(BENCH_TENANTS);
    expect(rows.reduce((sum, row) => sum + row.n, 0)).toBe(size.deployments);
    expect(rows.find((row) => row.tenant_id === tenantId(0))?.n).toBe(size.deployments / 2);
  });
});
