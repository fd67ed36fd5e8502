// Round trips of a write (issue 52, item 2), counted where they happen: every message of statements a pooled
// connection sends to PostgreSQL, BEGIN and COMMIT included, for a REST create with an Idempotency-Key and a first
// revision (3) and a PATCH that makes a revision (4: its answer reads the lists it kept), where the issue asks
// 4 at most (docs/performance.md#writes says where they go).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACME, importFixture, issueKey, newCipher } from './support/fixtures.ts';
import { startLiveService, type LiveService } from './support/live-data.ts';
import { noteSentMessages } from './support/sent-messages.ts';
import { createTestDatabase, type TestDatabase } from './support/test-database.ts';

let db: TestDatabase;
let service: LiveService;
let key: string;
let sent: string[] = [];

beforeAll(async () => {
  db = await createTestDatabase({ onPoolCreated: noteSentMessages(() => sent) });
  const cipher = newCipher();
  await importFixture(db.orm.em.fork(), cipher);
  key = await issueKey(db.orm.em, [ACME], true, true);
  // As the service runs: verified keys kept while revocations are heard, so a request does not read its key again.
  service = await startLiveService(db, cipher);
  // The first keyed write of a gateway deletes expired records (once a minute), and the key is verified once.
  await send('POST', '/v2/deployments', createBody(`warm-${randomUUID().slice(0, 8)}`), randomUUID());
});
afterAll(async () => {
  await service?.close();
  await db?.drop();
});

const createBody = (name: string) => ({
  name, source: 'external_docker', source_config: { deployment_type: 'dev' },
  source_revision_config: { image_uri: `registry.example.com/${name}:1` }, secrets: [{ name: 'TOKEN', value: 'one' }, { name: 'OTHER', value: 'two' }],
});

async function send(method: string, path: string, body: unknown, idempotencyKey?: string) {
  const response = await fetch(`${service.app.url}${path}`, {
    method, body: JSON.stringify(body),
    headers: { 'x-api-key': key, 'content-type': 'application/json', ...(idempotencyKey && { 'idempotency-key': idempotencyKey }) },
  });
  return { status: response.status, json: await response.json() };
}

/** Each message sent, as the first words of each statement it carried. */
async function roundTripsOf(write: () => Promise<{ status: number }>, status: number): Promise<string[]> {
  sent = [];
  expect((await write()).status).toBe(status);
  return sent.map((message) => message.split(/;\n/).map((sql) => sql.replace(/\s+/g, ' ').trim().split(' ').slice(0, 3).join(' ')).join(' + '));
}

const lastStatementOf = (trip: string | undefined) => trip?.split(' + ').at(-1);

describe('round trips to PostgreSQL per write', () => {
  it('of a create with an Idempotency-Key and a first revision: 3 (BEGIN with the key, the name, the rows and the answer with COMMIT)', async () => {
    const trips = await roundTripsOf(() => send('POST', '/v2/deployments', createBody(`counted-${randomUUID().slice(0, 8)}`), randomUUID()), 201);
    expect([trips[0]?.split(' + ')[0], lastStatementOf(trips.at(-1))], trips.join('\n')).toEqual(['begin', 'commit']);
    expect(trips.length, trips.join('\n')).toBeLessThanOrEqual(3);
  });

  it('of a create without a key: 2 (BEGIN with the name, the rows with COMMIT); of a PATCH of the image alone: 3 (its answer reads the secrets it kept)', async () => {
    const create = await roundTripsOf(() => send('POST', '/v2/deployments', createBody(`unkeyed-${randomUUID().slice(0, 8)}`)), 201);
    expect(create.length, create.join('\n')).toBeLessThanOrEqual(2);
    const { json } = await send('POST', '/v2/deployments', createBody(`unkeyed-${randomUUID().slice(0, 8)}`));
    const patch = await roundTripsOf(() => send('PATCH', `/v2/deployments/${json.id}`, { source_revision_config: { image_uri: 'registry.example.com/x:3' } }), 200);
    expect(patch.length, patch.join('\n')).toBeLessThanOrEqual(3);
  });

  it('of a PATCH that makes a revision, with an Idempotency-Key: 4 (BEGIN with the key, the row, the writes with the secrets its answer shows, the answer with COMMIT)', async () => {
    const { json } = await send('POST', '/v2/deployments', createBody(`patched-${randomUUID().slice(0, 8)}`));
    const trips = await roundTripsOf(() => send('PATCH', `/v2/deployments/${json.id}`, { source_revision_config: { image_uri: 'registry.example.com/x:2' } }, randomUUID()), 200);
    expect([trips[0]?.split(' + ')[0], lastStatementOf(trips.at(-1))], trips.join('\n')).toEqual(['begin', 'commit']);
    expect(trips.length, trips.join('\n')).toBeLessThanOrEqual(4);
  });

  it('of the CLI\'s PATCH (an image and the secrets), with an Idempotency-Key: 3 (BEGIN with the key, the row with its references, the writes and the answer with COMMIT); without: 2', async () => {
    const { json } = await send('POST', '/v2/deployments', createBody(`cli-${randomUUID().slice(0, 8)}`));
    const body = (n: number) => ({ source_revision_config: { image_uri: `registry.example.com/x:${n}` }, secrets: [{ name: 'TOKEN', value: `v${n}` }] });
    const keyed = await roundTripsOf(() => send('PATCH', `/v2/deployments/${json.id}`, body(1), randomUUID()), 200);
    expect([keyed[0]?.split(' + ')[0], lastStatementOf(keyed.at(-1))], keyed.join('\n')).toEqual(['begin', 'commit']);
    expect(keyed.length, keyed.join('\n')).toBeLessThanOrEqual(3);
    const unkeyed = await roundTripsOf(() => send('PATCH', `/v2/deployments/${json.id}`, body(2)), 200);
    expect(unkeyed.length, unkeyed.join('\n')).toBeLessThanOrEqual(2);
  });
});
