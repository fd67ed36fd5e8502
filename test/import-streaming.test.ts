// What streaming changes about an import must not show (docs/decisions.md#data-import): a bad record deep in a
// large document, after whole batches were already written inside the transaction, is refused with its path
// and leaves the database as it was; attacks on another tenant's rows are refused there too; a document whose
// lists come in another order, or whose bytes arrive in any chunks, imports to the same rows; and a document
// that is not JSON says where.
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { importDocument, type ImportSummary } from '../src/import/importer.ts';
import { ImportError } from '../src/import/import-error.ts';
import { ACME, ACME_DEPLOYMENT, ACME_INTEGRATION, GLOBEX, fixtureText, newCipher } from './support/fixtures.ts';
import { expectSameRows, importedRows, type Rows } from './support/imported-rows.ts';
import { useTestDatabase } from './support/test-database.ts';

type Json = any;
const FIXTURE = JSON.parse(fixtureText());
const LONG = { timeout: 120_000 };
const TABLES = ['tenant', 'tag_key', 'tag_value', 'integration', 'source_repository', 'deployment', 'deployment_tag_value', 'secret', 'secret_reference', 'revision'];

/** A small valid deployment of `tenant`, number `n`; with its eight secrets, 4,000 of them fill two batches. */
const deployment = (tenant: string, n: number): Json => ({
  id: `d0000000-0000-4000-8000-${String(n).padStart(12, '0')}`, tenant_id: tenant, name: `app-${n}`, status: 'READY', source: 'github',
  created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z', source_config: { deployment_type: 'dev', resource_spec: { memory_mb: 512 } },
  secrets: Array.from({ length: 8 }, (_, s) => ({ name: `TOKEN_${s}`, value: `token-${n}-${s}` })),
});

async function* inChunks(bytes: Buffer, size: number) {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

describe('streaming import', () => {
  const database = useTestDatabase();
  const cipher = newCipher();
  const run = (input: string | AsyncIterable<string | Buffer>): Promise<ImportSummary> => importDocument(database().orm.em, input, cipher);

  /** Every row of every table the import writes, as text. */
  async function dump(): Promise<string[]> {
    const rows: string[] = [];
    for (const table of TABLES) rows.push(...(await database().query<{ row: string }>(`select '${table}' || t::text as row from ${table} t order by 1`)).map((r) => r.row));
    return rows;
  }

  async function expectRefused(input: string, path: string, problem: RegExp): Promise<void> {
    const before = await dump();
    const error = await run(input).then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(ImportError);
    expect((error as ImportError).path).toBe(path);
    expect((error as ImportError).message).toMatch(problem);
    expect(await dump()).toEqual(before);
  }

  beforeEach(async () => {
    await database().query(`truncate ${TABLES.join(', ')} cascade`);
    await run(fixtureText());
  });

  describe('refuses a bad record deep in the document, after earlier batches were written, and writes nothing', () => {
    const many = (count: number, edit: (d: Json, n: number) => void = () => {}) =>
      JSON.stringify({ deployments: Array.from({ length: count }, (_, n) => { const d = deployment(ACME, n); edit(d, n); return d; }) });

    it('a malformed 4,000th deployment', LONG, async () => {
      await expectRefused(many(4000, (d, n) => { if (n === 3999) d.source_config.resource_spec.memory_mb = 1.5; }),
        'deployments[3999].source_config.resource_spec.memory_mb', /expected int/);
    });

    it('a 3,500th deployment whose id is another tenant\'s', LONG, async () => {
      await expectRefused(many(4000, (d, n) => { if (n === 3499) Object.assign(d, { id: ACME_DEPLOYMENT, tenant_id: GLOBEX }); }),
        'deployments[3499].id', /already exists in another tenant/);
    });

    it('a 3,900th deployment that repeats an id of the first batch', LONG, async () => {
      await expectRefused(many(4000, (d, n) => { if (n === 3899) d.id = deployment(ACME, 7).id.toUpperCase(); }),
        'deployments[3899]', /duplicate deployment id "d0000000-0000-4000-8000-000000000007"/);
    });

    it('a 3,000th deployment naming another tenant\'s integration', LONG, async () => {
      await expectRefused(many(3000, (d, n) => { if (n === 2999) Object.assign(d, { tenant_id: GLOBEX, source_config: { ...d.source_config, integration_id: ACME_INTEGRATION } }); }),
        'deployments[2999].source_config.integration_id', /belongs to another tenant/);
    });

    it('another tenant\'s integration declared again under a tenant, with repositories of its own', async () => {
      const stolen = { ...FIXTURE.integrations[0], tenant_id: GLOBEX, repositories: [{ id: 1, name: 'x', owner: 'x', url: 'https://x', default_branch: 'main' }] };
      await expectRefused(JSON.stringify({ deployments: [deployment(GLOBEX, 1)], integrations: [stolen] }), 'integrations[0].id', /already exists in another tenant/);
      expect(await database().query('select tenant_id, count(*)::int as n from source_repository group by 1')).toEqual([{ tenant_id: ACME, n: 2 }]);
    });
  });

  describe('reads any document, however it is laid out or delivered', () => {
    // The fixture, and a deployment whose text has escaped quotes and backslashes for chunks to split.
    const escapes = { ...deployment(ACME, 1), name: 'quote " backslash \\ both \\" end\\', secrets: [{ name: 'S', value: '\\\\"' }] };
    const text = JSON.stringify({ ...FIXTURE, deployments: [...FIXTURE.deployments, escapes] });
    let expected: Rows;
    beforeAll(async () => {
      await database().query(`truncate ${TABLES.join(', ')} cascade`);
      await run(text);
      expected = await importedRows(database(), cipher);
      expect(text).toContain('\\\\\\"');
    });
    const fresh = () => database().query(`truncate ${TABLES.join(', ')} cascade`);

    it('with its lists in reverse order (deployments first, tenants last)', async () => {
      await fresh();
      const { tenants, tags, integrations, deployments } = JSON.parse(text);
      expect(await run(JSON.stringify({ deployments, integrations, tags, tenants }))).toEqual({ created: 21, updated: 0, deleted: 0 });
      expectSameRows(await importedRows(database(), cipher), expected);
    });

    it.each([1, 3, 64])('in chunks of %i bytes', async (size) => {
      await fresh();
      expect(await run(inChunks(Buffer.from(text), size))).toEqual({ created: 21, updated: 0, deleted: 0 });
      expectSameRows(await importedRows(database(), cipher), expected);
    });
  });

  describe('says what is wrong with a document that is not one', () => {
    it.each([
      ['a syntax error, with its line and column', '{\n  "tenants": [\n    {"id": "x" "name": "y"}\n  ]\n}', '', /^not valid JSON \(Expected ',' or '}' after property value in tenants\[0\] at line 3, column 16\)$/],
      ['a document that ends early', '{"tenants": [', '', /not valid JSON \(unexpected end of the document\)/],
      ['text after the document', '{} {}', '', /not valid JSON \(expected nothing after the document, found "{}" at line 1, column 4\)/],
      ['an unknown list', '{"tenant": []}', '', /^unknown key "tenant"$/],
      ['a list given twice', '{"tenants": [], "tenants": []}', 'tenants', /appears twice/],
      ['a list that is not a list', '{"deployments": {}}', 'deployments', /expected array, received object/],
      ['a document that is not an object', '[]', '', /expected object, received array/],
    ])('%s', async (_, text, path, problem) => {
      await expectRefused(text, path, problem);
    });

    // A stream is prepared on a thread of its own (preparation-thread.ts): what it finds wrong comes back whole.
    it.each([
      ['a syntax error, with its line and column', '{\n  "tenants": [\n    {"id": "x" "name": "y"}\n  ]\n}', '', /^not valid JSON \(Expected ',' or '}' after property value in tenants\[0\] at line 3, column 16\)$/],
      ['an element that fails its schema, with its path', '{"tenants": [{"id": "not-a-uuid", "name": "y"}]}', 'tenants[0].id', /uuid/i],
    ])('%s, in a document delivered as a stream', async (_, text, path, problem) => {
      const before = await dump();
      const error = await run(inChunks(Buffer.from(text), 7)).then(() => undefined, (e: unknown) => e);
      expect(error).toBeInstanceOf(ImportError);
      expect((error as ImportError).path).toBe(path);
      expect((error as ImportError).message).toMatch(problem);
      expect(await dump()).toEqual(before);
    });
  });

  it('fails, writing nothing, when the stream it reads fails part way', LONG, async () => {
    const before = await dump();
    const text = Buffer.from(JSON.stringify({ deployments: Array.from({ length: 3000 }, (_, n) => deployment(ACME, n)) }));
    async function* breaking() {
      yield* inChunks(text.subarray(0, text.length - 1000), 64 * 1024);
      throw new Error('the disk went away');
    }
    await expect(run(breaking())).rejects.toThrow('the disk went away');
    expect(await dump()).toEqual(before);
  });
});

