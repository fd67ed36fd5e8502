// Subscriptions read their arguments as written in the document, literals included, not only through
// variables: graphql-jit's compiled subscribe handed the field's resolver the operation's variables as its
// arguments, so `deploymentUpdated(filter: {ids: […]})` streamed every deployment's changes and
// `revisionUpdated(deploymentId: "…")` was refused as if it had none (src/graphql/compiled-operations.plugin.ts).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ACME, importFixture, issueKey, newCipher } from './support/fixtures.ts';
import { subscribe } from './support/event-stream.ts';
import { deploymentRecord, importDeployments, newDeploymentId, startLiveService, type LiveService } from './support/live-data.ts';
import { restCaller } from './support/write-calls.ts';
import { createTestDatabase, type TestDatabase } from './support/test-database.ts';

let db: TestDatabase;
let service: LiveService;
const cipher = newCipher();
let key: string;
beforeAll(async () => {
  db = await createTestDatabase();
  await importFixture(db.orm.em.fork(), cipher);
  key = await issueKey(db.orm.em, [ACME], false, true);
  service = await startLiveService(db, cipher);
});
afterAll(async () => {
  await service?.close();
  await db?.drop();
});

it('filters deploymentUpdated by a literal filter', async () => {
  const [watched, other] = [newDeploymentId(), newDeploymentId()];
  const stream = await subscribe(service.app.url, key, `subscription { deploymentUpdated(filter: { ids: ["${watched}"] }) { deploymentId } }`);
  try {
    await importDeployments(db.orm.em, cipher, [deploymentRecord(other, ACME, 'not-watched', 'READY')]);
    await importDeployments(db.orm.em, cipher, [deploymentRecord(watched, ACME, 'watched', 'READY')]);
    expect((await stream.nextResult()).data.deploymentUpdated.deploymentId).toBe(watched);
  } finally {
    stream.close();
  }
});

it('streams revisionUpdated for the deployment named by a literal id', async () => {
  const call = restCaller(() => service.app.url, () => key);
  const created = await call('POST', '/v2/deployments', {
    body: { name: 'literal-arguments', source: 'external_docker', source_config: {}, source_revision_config: {}, secrets: [] },
  });
  expect(created.status).toBe(201);
  const stream = await subscribe(service.app.url, key, `subscription { revisionUpdated(deploymentId: "${created.json.id}") { revisionId previousStatus status } }`);
  try {
    const patched = await call('PATCH', `/v2/deployments/${created.json.id}`, { body: { source_revision_config: { image_uri: 'nginx:1.27' } } });
    const event = await stream.nextResult();
    expect(event.errors).toBeUndefined();
    expect(event.data.revisionUpdated).toEqual({ revisionId: patched.json.latest_revision_id, previousStatus: null, status: 'QUEUED' });
  } finally {
    stream.close();
  }
});
