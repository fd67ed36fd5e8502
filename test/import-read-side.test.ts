// The import of what the read side added to the document (docs/decisions.md#data-import): a revision's full
// record and an integration's installation id are stored as given; documents written before them still import,
// with the defaults docs/decisions.md#revisions and #integration-installations state; re-imports change
// nothing; a bad value is rejected naming its path.
import { beforeEach, describe, expect, it } from 'vitest';
import { importDocument, type ImportSummary } from '../src/import/importer.ts';
import { ImportError } from '../src/import/import-error.ts';
import { useTestDatabase } from './support/test-database.ts';
import { ACME_INTEGRATION, fixtureText, newCipher } from './support/fixtures.ts';

type Json = any;
const FIXTURE = fixtureText();
/** The fixture as a document of the older format: revisions of id, status and created_at, no installation ids. */
function olderFormat(): Json {
  const doc = JSON.parse(FIXTURE);
  for (const integration of doc.integrations) delete integration.installation_id;
  for (const deployment of doc.deployments) {
    deployment.revisions = (deployment.revisions ?? []).map(({ id, status, created_at }: Json) => ({ id, status, created_at }));
  }
  return doc;
}

describe('import of revision records and installation ids', () => {
  const database = useTestDatabase();
  const cipher = newCipher();
  beforeEach(async () => {
    await database().query('truncate tenant, integration, deployment, revision, secret, secret_reference, tag_key, tag_value, source_repository, deployment_tag_value cascade');
  });

  const importDoc = (doc: Json): Promise<ImportSummary> => importDocument(database().orm.em, JSON.stringify(doc), cipher);
  const revisions = async () => (await database().query<{ updated_at: Date; source_revision_config: unknown }>(
    'select id, source, source_revision_config, remote_reconciled, updated_at from revision order by id')).map((r) => ({ ...r, updated_at: r.updated_at.toISOString() }));
  const installations = () => database().query('select id, installation_id::text from integration order by id');

  it('stores every field of a revision and the installation id as the document gives them', async () => {
    await importDoc(JSON.parse(FIXTURE));
    expect(await revisions()).toEqual([
      {
        id: '66666666-6666-4666-8666-666666666661', source: 'github', remote_reconciled: false, updated_at: '2026-03-01T10:20:30.125Z',
        source_revision_config: { repo_ref: 'main', graph_config_path: 'config/graph.json', image_uri: 'registry.example.com/acme/checkout:1.4.1',
          source_tarball_path: null, repo_commit_sha: 'fedcba9876543210fedcba9876543210fedcba98' },
      },
      {
        id: '66666666-6666-4666-8666-666666666662', source: 'github', remote_reconciled: true, updated_at: '2026-03-02T11:30:15.250Z',
        source_revision_config: { repo_ref: 'main', graph_config_path: 'config/graph.json', image_uri: 'registry.example.com/acme/checkout:1.4.2',
          source_tarball_path: 'uploads/checkout.tar.gz', repo_commit_sha: '0123456789abcdef0123456789abcdef01234567' },
      },
    ]);
    expect(await installations()).toEqual([
      { id: ACME_INTEGRATION, installation_id: '52001234' }, { id: '99999999-9999-4999-8999-999999999999', installation_id: '52009999' },
    ]);
  });

  it('imports a document of the older format with the stated defaults', async () => {
    await importDoc(olderFormat());
    expect(await revisions()).toEqual([
      { id: '66666666-6666-4666-8666-666666666661', source: 'github', source_revision_config: null, remote_reconciled: false, updated_at: '2026-03-01T10:05:00.000Z' },
      { id: '66666666-6666-4666-8666-666666666662', source: 'github', source_revision_config: null, remote_reconciled: false, updated_at: '2026-03-02T11:30:00.000Z' },
    ]);
    expect(await installations()).toEqual([
      { id: ACME_INTEGRATION, installation_id: null }, { id: '99999999-9999-4999-8999-999999999999', installation_id: null },
    ]);
  });

  it('changes nothing when either format is imported again, and counts the switch between them as updates', async () => {
    for (const doc of [olderFormat(), JSON.parse(FIXTURE)]) {
      await database().query('truncate tenant cascade');
      const first = await importDoc(doc);
      expect(first.created).toBeGreaterThan(0);
      expect(await importDoc(doc)).toEqual({ created: 0, updated: 0, deleted: 0 });
    }
    // A key dropped from a record is cleared: back to the defaults (2 revisions, 2 integrations).
    expect(await importDoc(olderFormat())).toEqual({ created: 0, updated: 4, deleted: 0 });
    expect((await revisions()).map((r) => r.source_revision_config)).toEqual([null, null]);
  });

  it('takes a partial source_revision_config with every other key null, and null for the optional keys', async () => {
    const doc = JSON.parse(FIXTURE);
    Object.assign(doc.deployments[0].revisions[0], { source_revision_config: { image_uri: 'x:1' }, updated_at: null, source: null });
    await importDoc(doc);
    expect((await revisions())[0]).toEqual({
      id: '66666666-6666-4666-8666-666666666661', source: 'github', remote_reconciled: false, updated_at: '2026-03-01T10:05:00.000Z',
      source_revision_config: { repo_ref: null, graph_config_path: null, image_uri: 'x:1', source_tarball_path: null, repo_commit_sha: null },
    });
  });

  it.each<[string, (doc: Json) => void, string, RegExp]>([
    ['a revision source outside the value set', (doc) => { doc.deployments[0].revisions[0].source = 'gitlab'; }, 'deployments[0].revisions[0].source', /github/],
    ['an updated_at without a time zone', (doc) => { doc.deployments[0].revisions[1].updated_at = '2026-03-02T11:30:15'; }, 'deployments[0].revisions[1].updated_at', /time zone/],
    ['an unknown key in a revision', (doc) => { doc.deployments[0].revisions[0].remote_reconcilled = true; }, 'deployments[0].revisions[0]', /unknown key "remote_reconcilled"/],
    ['an unknown key in its source_revision_config', (doc) => { doc.deployments[0].revisions[0].source_revision_config.branch = 'x'; },
      'deployments[0].revisions[0].source_revision_config', /unknown key "branch"/],
    ['a remote_reconciled that is not a boolean', (doc) => { doc.deployments[0].revisions[0].remote_reconciled = 'yes'; }, 'deployments[0].revisions[0].remote_reconciled', /boolean/],
    ['a negative installation id', (doc) => { doc.integrations[0].installation_id = -1; }, 'integrations[0].installation_id', />=0|too small/i],
    ['a fractional installation id', (doc) => { doc.integrations[0].installation_id = 1.5; }, 'integrations[0].installation_id', /int/],
    ['an installation id beyond 2^53 - 1', (doc) => { doc.integrations[1].installation_id = 2 ** 53; }, 'integrations[1].installation_id', /too big|<=/i],
  ])('rejects %s, naming its path, and writes nothing', async (_, edit, path, problem) => {
    const doc = JSON.parse(FIXTURE);
    edit(doc);
    const error = await (async () => importDoc(doc))().then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(ImportError);
    expect({ path: (error as ImportError).path, message: (error as ImportError).message }).toMatchObject({ path, message: expect.stringMatching(problem) });
    expect(await database().query('select count(*)::int as n from revision')).toEqual([{ n: 0 }]);
  });
});
