// Issue 42's "Nothing lost, nothing twice", as a client of the REST door sees it, against real PostgreSQL: writes
// racing for one name, one Idempotency-Key or one ETag; a write whose connection is lost mid-transaction, or
// after its commit; and the live-update stream hearing each write. Races are made certain, not lucky: a lock
// held by the test parks the app's writes (test/support/parked-writes.ts) until they overlap, then lets them go.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACME, importFixture, issueKey, newCipher } from './support/fixtures.ts';
import { subscribe } from './support/event-stream.ts';
import { startLiveService, type LiveService } from './support/live-data.ts';
import { holdLock, holdsTableLock, lockWaiters, terminate } from './support/parked-writes.ts';
import { createTestDatabase, type TestDatabase } from './support/test-database.ts';

let db: TestDatabase;
let service: LiveService;
let writerKey: string;

beforeAll(async () => {
  db = await createTestDatabase();
  const cipher = newCipher();
  await importFixture(db.orm.em.fork(), cipher);
  writerKey = await issueKey(db.orm.em, [ACME], true, true);
  service = await startLiveService(db, cipher);
});
afterAll(async () => {
  await service?.close();
  await db?.drop();
});

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

async function rest(method: string, path: string, options: { body?: unknown; headers?: Record<string, string> } = {}): Promise<Answer> {
  const response = await fetch(`${service.app.url}${path}`, {
    method,
    headers: { 'x-api-key': writerKey, ...(options.body === undefined ? {} : { 'content-type': 'application/json' }), ...options.headers },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: text ? JSON.parse(text) : undefined };
}

/** For failure messages: the status, whether a replay, the ETag and the start of the body. */
const describeAnswer = (answer: Answer) =>
  `${answer.status}${answer.headers.get('idempotent-replayed') ? ' (replay)' : ''} ${answer.headers.get('etag') ?? ''} ${answer.text.slice(0, 100)}`;

/** A create body as the original's CLI sends one: an image to build, and one secret. */
const createBody = (name: string) => ({
  name, source: 'internal_docker', source_config: { deployment_type: 'dev' },
  source_revision_config: { image_uri: `registry.example.com/${name}@sha256:1` }, secrets: [{ name: 'API_TOKEN', value: 'first' }],
});
/** A PATCH that makes a new revision and replaces the secrets. */
const patchBody = (image: string, token: string) => ({ source_revision_config: { image_uri: `registry.example.com/${image}` }, secrets: [{ name: 'API_TOKEN', value: token }] });

const uniqueName = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;
const nameTaken = (name: string) => ({ detail: `A deployment named "${name}" already exists.` });
const STILL_RUNNING = { detail: 'A request with this Idempotency-Key is still being processed; retry later.' };

async function created(name: string): Promise<Answer> {
  const answer = await rest('POST', '/v2/deployments', { body: createBody(name) });
  expect(answer.status, answer.text).toBe(201);
  return answer;
}

const deploymentsNamed = async (name: string) =>
  (await db.query<{ n: number }>('select count(*)::int as n from deployment where tenant_id = $1 and name = $2', [ACME, name]))[0]!.n;
const revisionsOf = async (id: string) =>
  (await db.query<{ n: number }>('select count(*)::int as n from revision where deployment_id = $1', [id]))[0]!.n;
const storedSecrets = (id: string) => db.query('select id, name, position, value_ciphertext from secret where deployment_id = $1 order by position', [id]);

describe('creates racing for one name', () => {
  it('make one deployment and 19 clean 409s, with or without (different) Idempotency-Keys', async () => {
    const name = uniqueName('race');
    // Inserts into deployment wait behind the test's lock: the writes queue there, past their own checks.
    const holder = await holdLock(db, 'lock table deployment in share mode');
    let answers: Answer[];
    try {
      const sent = Array.from({ length: 20 }, (_, i) =>
        rest('POST', '/v2/deployments', { body: createBody(name), headers: i % 2 === 0 ? { 'idempotency-key': randomUUID() } : {} }));
      await lockWaiters(db, 2);
      await holder.release();
      answers = await Promise.all(sent);
    } finally {
      await holder.release();
    }
    const log = answers.map(describeAnswer).join('\n');
    expect(answers.filter((a) => a.status === 201), log).toHaveLength(1);
    const refused = answers.filter((a) => a.status !== 201);
    expect(refused.map((a) => [a.status, a.json]), log).toEqual(Array(19).fill([409, nameTaken(name)]));
    expect(await deploymentsNamed(name)).toBe(1);
    const listed = await rest('GET', `/v2/deployments?name_contains=${name}`);
    expect(listed.json.resources.map((d: { name: string }) => d.name)).toEqual([name]);
  });
});

describe('retries under one Idempotency-Key', () => {
  /** Each answer is the first 201/200 (identical bytes and ETag, replays marked) or "still being processed". */
  function expectOneAnswer(answers: Answer[], status: number): Answer {
    const log = answers.map(describeAnswer).join('\n');
    const done = answers.filter((a) => a.status === status);
    expect(done.length, log).toBeGreaterThanOrEqual(1);
    const firsts = done.filter((a) => a.headers.get('idempotent-replayed') === null);
    expect(firsts.length, `one request ran, the others were answered for it:\n${log}`).toBe(1);
    const [first] = firsts;
    for (const replay of done) {
      expect(replay.text).toBe(first!.text);
      expect(replay.headers.get('etag')).toBe(first!.headers.get('etag'));
    }
    expect(answers.filter((a) => a.status !== status).map((a) => [a.status, a.json]), log)
      .toEqual(Array(answers.length - done.length).fill([409, STILL_RUNNING]));
    return first!;
  }

  async function expectReplayOf(first: Answer, retry: () => Promise<Answer>) {
    const replay = await retry();
    expect(replay.status).toBe(first.status);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(first.text);
    expect(replay.headers.get('etag')).toBe(first.headers.get('etag'));
  }

  it('of a create, 20 at once, make one deployment; a later retry gets the 201 again', async () => {
    const name = uniqueName('retried-create');
    const key = randomUUID();
    const send = () => rest('POST', '/v2/deployments', { body: createBody(name), headers: { 'idempotency-key': key } });
    const answers = await Promise.all(Array.from({ length: 20 }, send));
    const first = expectOneAnswer(answers, 201);
    expect(first.json.name).toBe(name);
    expect(await deploymentsNamed(name)).toBe(1);
    await expectReplayOf(first, send);
    expect(await deploymentsNamed(name)).toBe(1);
  });

  it('of a PATCH, 20 at once, make one revision; a later retry gets the 200 again', async () => {
    const { json: deployment } = await created(uniqueName('retried-patch'));
    const before = await revisionsOf(deployment.id);
    const key = randomUUID();
    const send = () => rest('PATCH', `/v2/deployments/${deployment.id}`, { body: patchBody('retried:2', 'second'), headers: { 'idempotency-key': key } });
    const answers = await Promise.all(Array.from({ length: 20 }, send));
    const first = expectOneAnswer(answers, 200);
    expect(await revisionsOf(deployment.id)).toBe(before + 1);
    expect(first.json.latest_revision_id).not.toBe(deployment.latest_revision_id);
    await expectReplayOf(first, send);
    expect(await revisionsOf(deployment.id)).toBe(before + 1);
  });
});

describe('two PATCHes with the same If-Match', () => {
  it('give one 200 and one 412 naming the current ETag, and one new revision', async () => {
    const { json: deployment, headers } = await created(uniqueName('if-match'));
    const etag = headers.get('etag')!;
    const before = await revisionsOf(deployment.id);
    // Both wait behind the test's lock on the deployment's row, having read the same ETag, then go at once.
    const holder = await holdLock(db, 'select 1 from deployment where id = $1 for update', [deployment.id]);
    let answers: Answer[];
    try {
      const sent = ['a', 'b'].map((image) =>
        rest('PATCH', `/v2/deployments/${deployment.id}`, { body: patchBody(`if-match:${image}`, image), headers: { 'if-match': etag } }));
      await lockWaiters(db, 2);
      await holder.release();
      answers = await Promise.all(sent);
    } finally {
      await holder.release();
    }
    const log = answers.map(describeAnswer).join('\n');
    expect(answers.map((a) => a.status).sort(), log).toEqual([200, 412]);
    const won = answers.find((a) => a.status === 200)!;
    const lost = answers.find((a) => a.status === 412)!;
    expect(lost.json).toEqual({ detail: `Deployment ${deployment.id} has changed since the version you sent (If-Match); read it again and retry.` });
    expect(lost.headers.get('etag')).toBe(won.headers.get('etag'));
    expect(won.headers.get('etag')).not.toBe(etag);
    expect(await revisionsOf(deployment.id)).toBe(before + 1);
  });
});

describe('a write whose database connection is lost', () => {
  it('mid-transaction leaves nothing half-written, and its Idempotency-Key can be used again', async () => {
    const { json: deployment, headers } = await created(uniqueName('broken-off'));
    const before = { answer: await rest('GET', `/v2/deployments/${deployment.id}`), etag: headers.get('etag'), revisions: await revisionsOf(deployment.id), secrets: await storedSecrets(deployment.id) };
    const key = randomUUID();
    const send = () => rest('PATCH', `/v2/deployments/${deployment.id}`, { body: patchBody('broken-off:2', 'second'), headers: { 'idempotency-key': key } });

    // The PATCH locks the deployment, then sends its writes in one message: the old secrets deleted, then its
    // revisions (a queued one superseded, then the new one), which wait.
    const holder = await holdLock(db, 'lock table revision in share mode');
    let failed: Answer;
    try {
      const sent = send();
      const [write] = await lockWaiters(db, 1);
      expect(write!.query).toMatch(/^delete from "?secret"? [\s\S]*;\n(update|insert into) "?revision"? /);
      expect(await holdsTableLock(db, write!.pid, 'secret', 'RowExclusiveLock'), 'the old secrets are deleted in its transaction').toBe(true);
      await expect(db.query('select 1 from deployment where id = $1 for update nowait', [deployment.id]), 'it holds the deployment\'s row')
        .rejects.toMatchObject({ code: '55P03' });
      await terminate(db, write!.pid);
      failed = await sent;
    } finally {
      await holder.release();
    }
    expect([500, 503], describeAnswer(failed)).toContain(failed.status);

    const after = await rest('GET', `/v2/deployments/${deployment.id}`);
    expect(after.text).toBe(before.answer.text);
    expect(await revisionsOf(deployment.id)).toBe(before.revisions);
    expect(await storedSecrets(deployment.id)).toEqual(before.secrets);
    // The ETag too: a PATCH with the one from before the failure still goes ahead.
    expect((await rest('PATCH', `/v2/deployments/${deployment.id}`, { body: {}, headers: { 'if-match': before.etag! } })).status).toBe(200);

    const retried = await send();
    expect(retried.status, retried.text).toBe(200);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    expect(retried.json.secrets).toEqual([{ name: 'API_TOKEN', value: 'second' }]);
    expect(await revisionsOf(deployment.id)).toBe(before.revisions + 1);
  });

  it('while its answer is stored takes the write with it, and a retry under its Idempotency-Key runs it once', async () => {
    const { json: deployment } = await created(uniqueName('answer-lost'));
    const before = await revisionsOf(deployment.id);
    const key = randomUUID();
    const send = () => rest('PATCH', `/v2/deployments/${deployment.id}`, { body: patchBody('answer-lost:2', 'second'), headers: { 'idempotency-key': key } });

    // The answer is stored in the message that carries the write's rows and its COMMIT: storing it waits for the
    // table (reading it, at the key's lock, does not).
    const holder = await holdLock(db, 'lock table idempotency_record in share mode');
    let failed: Answer;
    try {
      const sent = send();
      // The answer's insert, in the message that carries the write's rows before it (its text, as PostgreSQL
      // shows its first 1 kB, begins with them); another backend of the service may be waiting on the table too,
      // and is left alone.
      const answerRead = (query: string) => /^delete from "?secret"? /.test(query);
      let read = (await lockWaiters(db, 1)).find((waiter) => answerRead(waiter.query));
      for (const deadline = Date.now() + 15_000; !read && Date.now() < deadline;) {
        await new Promise((resolve) => setTimeout(resolve, 10));
        read = (await lockWaiters(db, 1)).find((waiter) => answerRead(waiter.query));
      }
      expect(read?.query).toMatch(/^delete from "?secret"? /);
      // The answer is made in the write's transaction (it is stored there): nothing is committed yet.
      expect(await revisionsOf(deployment.id), 'the write waits for its answer').toBe(before);
      await terminate(db, read!.pid);
      failed = await sent;
    } finally {
      await holder.release();
    }
    expect([500, 503], describeAnswer(failed)).toContain(failed.status);
    expect(await revisionsOf(deployment.id)).toBe(before);

    const retried = await send();
    expect(retried.status, describeAnswer(retried)).toBe(200);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    expect(await revisionsOf(deployment.id)).toBe(before + 1);
    const again = await send();
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(retried.text);
    expect(await revisionsOf(deployment.id)).toBe(before + 1);
  });
});

describe('a live-update subscriber', () => {
  const CHANGES = `subscription Changes($filter: DeploymentFilter) {
    deploymentUpdated(filter: $filter) { kind deploymentId deployment { uuid name latestRevisionId } }
  }`;

  it('hears a create, a PATCH and a delete made through the REST door', async () => {
    const name = uniqueName('heard');
    const stream = await subscribe(service.app.url, writerKey, CHANGES, { variables: { filter: { nameContains: name } } });
    try {
      expect(stream.status).toBe(200);
      // No revision and no secrets: the create's transaction changes the deployment's row only.
      const create = await rest('POST', '/v2/deployments', { body: { ...createBody(name), source_revision_config: {}, secrets: [] } });
      expect(create.status, create.text).toBe(201);
      const { id } = create.json;
      expect((await stream.nextResult()).data.deploymentUpdated).toEqual({ kind: 'CREATED', deploymentId: id, deployment: { uuid: id, name, latestRevisionId: null } });

      const patch = await rest('PATCH', `/v2/deployments/${id}`, { body: patchBody('heard:2', 'second') });
      expect(patch.status, patch.text).toBe(200);
      expect((await stream.nextResult()).data.deploymentUpdated)
        .toEqual({ kind: 'UPDATED', deploymentId: id, deployment: { uuid: id, name, latestRevisionId: patch.json.latest_revision_id } });

      expect((await rest('DELETE', `/v2/deployments/${id}`)).status).toBe(204);
      // The PATCH's other statements may be announced too (as UPDATED); the deletion comes after them.
      let change = (await stream.nextResult()).data.deploymentUpdated;
      while (change.kind === 'UPDATED') change = (await stream.nextResult()).data.deploymentUpdated;
      expect(change).toEqual({ kind: 'DELETED', deploymentId: id, deployment: null });
    } finally {
      stream.close();
    }
  });
});
