// The CLI's remote build, the service's side (issue 51; docs/decisions.md#source-archives): POST …/upload-url
// issues an absolute, signed URL and an object path; the archive is PUT there without a key, through the
// service's own request handler (not the JSON body reader and its MAX_BODY_BYTES); a PATCH names the path, and
// is refused for any path the service did not issue for that deployment of that tenant, or whose object is not
// there; a data plane that claims the revision downloads the archive; the sweep removes what nobody can use.
// The same flow last with the S3 store, against s3rver.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startFixtureApp, type FixtureApp } from './support/fixture-app.ts';
import { startApp, type RunningApp } from './support/app-server.ts';
import { ACME, ACME_DEPLOYMENT, GLOBEX, GLOBEX_DEPLOYMENT } from './support/fixtures.ts';
import { deploymentNotFound, detail, expectJsonText, restCaller, valueError, READ_ONLY, UNKNOWN_ID } from './support/write-calls.ts';
import { archiveOf, chunks, cliPut, cutOffPut, expectDetail, objectRequest, uploadArchive } from './support/object-http.ts';
import { sweepSourceArchives } from '../src/modules/storage/source-archive-sweep.ts';
import { DOWNLOAD_WINDOW_MS } from '../src/modules/storage/source-archives.ts';
import { S3ObjectStore } from '../src/modules/storage/s3-object-store.ts';
import { startS3Server, type S3Server } from './support/s3-server.ts';

let fixture: FixtureApp<'writer' | 'reader' | 'plane' | 'globexWriter'>;
beforeAll(async () => {
  fixture = await startFixtureApp([], {
    writer: { tenants: [ACME], mayWrite: true }, reader: { tenants: [ACME] }, plane: { tenants: [ACME], mayReconcile: true },
    globexWriter: { tenants: [GLOBEX], mayWrite: true },
  });
});
afterAll(() => fixture?.close());

const call = restCaller(() => fixture.app.url, () => fixture.keys.writer);
const store = () => fixture.app.sourceArchives.store;
const PATH = /^sources\/([0-9a-f-]{36})\/([0-9a-f-]{36})\/[0-9a-f-]{36}\.tar\.gz$/;

let made = 0;
/** A new deployment of the writer's tenant (the CLI's remote create). */
async function remoteDeployment(source = 'internal_source', key = fixture.keys.writer): Promise<string> {
  const body = { name: `remote-${++made}`, source, source_config: { deployment_type: 'dev' }, source_revision_config: {}, secrets: [] };
  const answer = await call('POST', '/v2/deployments', { body, key });
  expect(answer.status, answer.text).toBe(201);
  return answer.json.id;
}

const issue = async (id: string, key = fixture.keys.writer) => {
  const answer = await call('POST', `/v2/deployments/${id}/upload-url`, { key });
  expect(answer.status, answer.text).toBe(200);
  return answer.json as { upload_url: string; object_path: string; expires_at: string };
};

/** The CLI's remote-build PATCH naming `path`. */
const remotePatch = (path: string) => ({ revision_source: 'internal_source', source_revision_config: { source_tarball_path: path, graph_config_path: 'graph.json' }, secrets: [] });

describe('POST /v2/deployments/{deployment_id}/upload-url', () => {
  it('answers an absolute upload URL of the service and an object path of the deployment, valid 15 minutes', async () => {
    const id = await remoteDeployment();
    const before = Date.now();
    const answer = await call('POST', `/v2/deployments/${id}/upload-url`);
    const after = Date.now();
    expect(answer.status).toBe(200);
    expect(Object.keys(answer.json)).toEqual(['upload_url', 'object_path', 'expires_at']);
    const { upload_url: uploadUrl, object_path: objectPath, expires_at: expiresAt } = answer.json;
    expect(objectPath).toMatch(PATH);
    expect(PATH.exec(objectPath)!.slice(1)).toEqual([ACME, id]);
    expect(uploadUrl.startsWith(`${fixture.app.url}/objects/${objectPath}?`)).toBe(true);
    expect(new URL(uploadUrl).searchParams.get('max_bytes')).toBe('209715200');
    // Issued between `before` and `after` (the answer's time may be shown to the second): bracketed by what
    // the test saw, not by a guess at how long the call takes.
    expect(Date.parse(expiresAt)).toBeGreaterThanOrEqual(before + 15 * 60_000 - 1000);
    expect(Date.parse(expiresAt)).toBeLessThanOrEqual(after + 15 * 60_000);
    // Each call issues a path of its own.
    expect((await issue(id)).object_path).not.toBe(objectPath);
  });

  it('takes the archive by a PUT without a key, larger than MAX_BODY_BYTES (streamed, not read as a JSON body)', async () => {
    const id = await remoteDeployment();
    const { upload_url: uploadUrl, object_path: objectPath } = await issue(id);
    const archive = Buffer.concat([archiveOf('big'), Buffer.alloc(300 * 1024, 3)]);
    const put = await cliPut(uploadUrl, archive);
    expect({ status: put.status, location: put.headers.location, body: put.text }).toEqual({ status: 200, location: undefined, body: '' });
    expect(await store().sizeOf(objectPath)).toBe(archive.length);
  });

  it('is for internal_source and internal_docker deployments; others are 400, as push-token words it', async () => {
    expect((await issue(await remoteDeployment('internal_docker'))).object_path).toMatch(PATH);
    const docker = await remoteDeployment('external_docker');
    expectJsonText(await call('POST', `/v2/deployments/${docker}/upload-url`), 400,
      detail('Upload URLs are only available for \'internal_source\' and \'internal_docker\' source deployments.'));
    expectJsonText(await call('POST', `/v2/deployments/${ACME_DEPLOYMENT}/upload-url`), 400,
      detail('Upload URLs are only available for \'internal_source\' and \'internal_docker\' source deployments.'));
  });

  it('needs a key that may write, and finds only the tenant\'s deployments (another tenant\'s is 404 as an unknown one)', async () => {
    const id = await remoteDeployment();
    expectJsonText(await call('POST', `/v2/deployments/${id}/upload-url`, { key: fixture.keys.reader }), 403, READ_ONLY);
    expectJsonText(await call('POST', `/v2/deployments/${id}/upload-url`, { key: '' }), 401, detail('Not authenticated'));
    expectJsonText(await call('POST', `/v2/deployments/${UNKNOWN_ID}/upload-url`), 404, deploymentNotFound(UNKNOWN_ID));
    expectJsonText(await call('POST', `/v2/deployments/${GLOBEX_DEPLOYMENT}/upload-url`), 404, deploymentNotFound(GLOBEX_DEPLOYMENT));
    expectJsonText(await call('POST', `/v2/deployments/${id}/upload-url`, { key: fixture.keys.globexWriter }), 404, deploymentNotFound(id));
  });
});

describe('a PATCH naming a source_tarball_path', () => {
  it('builds from an archive uploaded to a path issued for the deployment', async () => {
    const id = await remoteDeployment();
    const objectPath = await uploadArchive(call, id);
    const answer = await call('PATCH', `/v2/deployments/${id}`, { body: remotePatch(objectPath) });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json.source_revision_config.source_tarball_path).toBe(objectPath);
    const [revision] = (await call('GET', `/v2/deployments/${id}/revisions?limit=1`)).json.resources;
    expect({ id: revision.id, status: revision.status, path: revision.source_revision_config.source_tarball_path })
      .toEqual({ id: answer.json.latest_revision_id, status: 'QUEUED', path: objectPath });
    // The same path again (a rebuild of the same archive) is still the deployment's.
    expect((await call('PATCH', `/v2/deployments/${id}`, { body: remotePatch(objectPath) })).status).toBe(200);
  });

  /** Each attack: the deployment to PATCH, and the path it names; what the refusal says. */
  const attacks: [string, () => Promise<{ id: string; path: string; problem: string }>][] = [
    ['another tenant\'s uploaded path', async () => {
      const globex = await remoteDeployment('internal_source', fixture.keys.globexWriter);
      const path = await uploadArchive(call, globex, archiveOf('globex'), { key: fixture.keys.globexWriter });
      return { id: await remoteDeployment(), path, problem: 'never issued' };
    }],
    ['another deployment\'s uploaded path, of the same tenant', async () => {
      const path = await uploadArchive(call, await remoteDeployment());
      return { id: await remoteDeployment(), path, problem: 'never issued' };
    }],
    ['a path never issued', async () => {
      const id = await remoteDeployment();
      return { id, path: `sources/${ACME}/${id}/0f0f0f0f-0000-4000-8000-000000000000.tar.gz`, problem: 'never issued' };
    }],
    ['an issued path with `..` leading to another deployment\'s upload', async () => {
      const id = await remoteDeployment();
      const other = await uploadArchive(call, await remoteDeployment());
      await uploadArchive(call, id);
      return { id, path: `sources/${ACME}/${id}/../${other.split('/').slice(2).join('/')}`, problem: 'never issued' };
    }],
    ['an issued path with nothing uploaded', async () => {
      const id = await remoteDeployment();
      const { object_path: path } = await issue(id);
      return { id, path, problem: `nothing was uploaded to ${path}: PUT the archive to its upload_url first` };
    }],
    ['an issued path whose upload was cut off midway', async () => {
      const id = await remoteDeployment();
      const { object_path: path, upload_url: url } = await issue(id);
      await cutOffPut(url, 400_000, 150_000);
      return { id, path, problem: `nothing was uploaded to ${path}: PUT the archive to its upload_url first` };
    }],
    ['an uploaded path left unused past its time', async () => {
      const id = await remoteDeployment();
      const path = await uploadArchive(call, id);
      await fixture.db.query('update source_upload set expires_at = now() - interval \'1 minute\' where object_path = $1', [path]);
      const [row] = await fixture.db.query<{ expires_at: Date }>('select expires_at from source_upload where object_path = $1', [path]);
      return { id, path, problem: `the upload ${path} was not used before it expired at ${row!.expires_at.toISOString()}: ask for a new upload URL` };
    }],
  ];

  it.each(attacks)('refuses %s: 422 at source_tarball_path, and changes nothing', async (_, attack) => {
    const { id, path, problem } = await attack();
    const before = await call('GET', `/v2/deployments/${id}`);
    const answer = await call('PATCH', `/v2/deployments/${id}`, { body: remotePatch(path) });
    const message = problem === 'never issued'
      ? `source_tarball_path must be an object_path issued for this deployment by POST /v2/deployments/${id}/upload-url; arbitrary paths are not accepted`
      : problem;
    expectJsonText(answer, 422, { detail: [valueError(['body', 'source_revision_config', 'source_tarball_path'], path, message)] });
    const after = await call('GET', `/v2/deployments/${id}`);
    expect({ text: after.text, etag: after.headers.get('etag') }).toEqual({ text: before.text, etag: before.headers.get('etag') });
    expect((await call('GET', `/v2/deployments/${id}/revisions`)).json.resources).toEqual([]);
  });

  it('is refused for an internal_docker deployment building from internal_source too, unless issued for it', async () => {
    const id = await remoteDeployment('internal_docker');
    const stranger = await uploadArchive(call, await remoteDeployment('internal_docker'));
    expect((await call('PATCH', `/v2/deployments/${id}`, { body: remotePatch(stranger) })).status).toBe(422);
    expect((await call('PATCH', `/v2/deployments/${id}`, { body: remotePatch(await uploadArchive(call, id)) })).status).toBe(200);
  });
});

describe('the upload URL, through the service', () => {
  it('refuses an expired URL, and one whose signature, path, expiry or size limit was altered: 403 with a JSON detail', async () => {
    const id = await remoteDeployment();
    const { upload_url: url, object_path: objectPath } = await issue(id);
    const { object_path: otherPath } = await issue(id);
    const query = new URL(url).searchParams;
    const withParam = (name: string, value: string) => {
      const changed = new URL(url);
      changed.searchParams.set(name, value);
      return changed.toString();
    };
    const signature = query.get('signature')!;
    const tampered = {
      signature: withParam('signature', `${signature[0] === 'A' ? 'B' : 'A'}${signature.slice(1)}`),
      path: url.replace(objectPath, otherPath),
      expiry: withParam('expires', String(Number(query.get('expires')) + 86_400)),
      'size limit': withParam('max_bytes', String(10 * 1024 * 1024 * 1024)),
    };
    for (const attempt of Object.values(tampered)) expectDetail(await cliPut(attempt, archiveOf('tampered')), 403, /^The signature of this URL does not match it/);
    const expired = await fixture.app.sourceArchives.store.uploadUrl(objectPath, { issuedAt: new Date(Date.now() - 120_000), expiresAt: new Date(Date.now() - 60_000), maxBytes: 1000 });
    expectDetail(await cliPut(expired, archiveOf('late')), 403, /^This URL expired at /);
    expect(await store().sizeOf(objectPath)).toBeUndefined();
    expect(await store().sizeOf(otherPath)).toBeUndefined();
  });

  it('never writes outside its folder: a `..` in the URL\'s path is 404', async () => {
    const id = await remoteDeployment();
    const { upload_url: url, object_path: objectPath } = await issue(id);
    const escaping = url.replace(objectPath, `${objectPath.split('/').slice(0, 3).join('/')}/../../../../escaped.tar.gz`);
    expectDetail(await cliPut(escaping, archiveOf('escape')), 404, 'Not Found');
  });
});

describe('the size limit, through the service', () => {
  let small: RunningApp;
  beforeAll(async () => {
    small = await startApp(fixture.db.orm, fixture.cipher, undefined, { sourceArchiveLimits: { maxBytes: 300_000 } });
  });
  afterAll(() => small?.close());
  const smallCall = restCaller(() => small.url, () => fixture.keys.writer);

  it('refuses at once an archive whose Content-Length is over the limit, and one streamed chunked once it passes it: 413, nothing stored', async () => {
    const id = await remoteDeployment();
    const { upload_url: url, object_path: objectPath } = (await smallCall('POST', `/v2/deployments/${id}/upload-url`)).json;
    expectDetail(await objectRequest('PUT', url, Buffer.alloc(0), { 'content-length': '300001' }), 413, 'The archive is larger than the limit of 300000 bytes.');
    // 16 MiB offered without a length; refused after about 300 KB.
    expectDetail(await objectRequest('PUT', url, chunks(256), { 'content-type': 'application/gzip' }), 413, 'The archive is larger than the limit of 300000 bytes.');
    expect(await small.sourceArchives.store.sizeOf(objectPath)).toBeUndefined();
    const answer = await smallCall('PATCH', `/v2/deployments/${id}`, { body: remotePatch(objectPath) });
    expect(answer.status).toBe(422);
  });
});

describe('a data plane building an internal_source revision', () => {
  const plane = restCaller(() => fixture.app.url, () => fixture.keys.plane);

  it('downloads the archive from the claim\'s source_archive_url without a key; an altered URL is refused; only data-plane keys see it in GraphQL', async () => {
    const id = await remoteDeployment();
    const archive = archiveOf('to build');
    const objectPath = await uploadArchive(call, id, archive);
    const revisionId = (await call('PATCH', `/v2/deployments/${id}`, { body: remotePatch(objectPath) })).json.latest_revision_id;
    let lease: { source_archive_url: string } | undefined;
    for (let i = 0; i < 50 && !lease; i++) lease = (await plane('POST', '/v2/data-plane/claims', { body: { limit: 100 } })).json.leases.find((l: { revision_id: string }) => l.revision_id === revisionId);
    const url = lease!.source_archive_url;
    expect(url.startsWith(`${fixture.app.url}/objects/${objectPath}?`)).toBe(true);
    const download = await objectRequest('GET', url);
    expect({ status: download.status, type: download.headers['content-type'], same: download.body.equals(archive) }).toEqual({ status: 200, type: 'application/gzip', same: true });
    const other = await uploadArchive(call, id, archiveOf('not yours'));
    expectDetail(await objectRequest('GET', url.replace(objectPath, other)), 403, /^The signature of this URL does not match it/);

    const query = `{ deployment(id: "${id}") { revisions { uuid sourceArchiveUrl } } }`;
    const seen = async (key: string) => (await fixture.app.graphql(query, { 'x-api-key': key })).body.data.deployment.revisions[0].sourceArchiveUrl;
    expect(await seen(fixture.keys.plane)).toBe(url);
    expect(await seen(fixture.keys.writer)).toBeNull();
  });
});

describe('a read showing a download URL', () => {
  it('keeps its entity tag within the URL\'s half hour, and gets a new one (and a new URL) in the next', async () => {
    const id = await remoteDeployment();
    await call('PATCH', `/v2/deployments/${id}`, { body: remotePatch(await uploadArchive(call, id)) });
    const query = encodeURIComponent(`{ deployment(id: "${id}") { revisions { sourceArchiveUrl } } }`);
    const read = (etag?: string) => fetch(`${fixture.app.url}/graphql?query=${query}`, {
      headers: { 'x-api-key': fixture.keys.plane, accept: 'application/graphql-response+json', ...(etag && { 'if-none-match': etag }) },
    });
    const start = Math.ceil(Date.now() / DOWNLOAD_WINDOW_MS) * DOWNLOAD_WINDOW_MS + 1000;
    vi.useFakeTimers({ toFake: ['Date'], now: start });
    try {
      const first = await read();
      const etag = first.headers.get('etag')!;
      const url = (await first.json()).data.deployment.revisions[0].sourceArchiveUrl;
      vi.setSystemTime(start + DOWNLOAD_WINDOW_MS - 2000);
      expect((await read(etag)).status).toBe(304);
      vi.setSystemTime(start + DOWNLOAD_WINDOW_MS);
      const next = await read(etag);
      expect(next.status).toBe(200);
      expect(next.headers.get('etag')).not.toBe(etag);
      const nextUrl = (await next.json()).data.deployment.revisions[0].sourceArchiveUrl;
      expect(nextUrl).not.toBe(url);
      // The URL served before still works until the end of its second window.
      expect((await objectRequest('GET', url)).status).toBe(200);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('the sweep', () => {
  const rowOf = async (path: string) => (await fixture.db.query('select used_by_revision_id from source_upload where object_path = $1', [path]))[0];

  it('removes the archives of a deleted deployment, used or not, and forgets them once their upload URLs have expired', async () => {
    const id = await remoteDeployment();
    const used = await uploadArchive(call, id);
    expect((await call('PATCH', `/v2/deployments/${id}`, { body: remotePatch(used) })).status).toBe(200);
    const unused = await uploadArchive(call, id);
    const keeper = await uploadArchive(call, await remoteDeployment());
    expect((await call('DELETE', `/v2/deployments/${id}`)).status).toBe(204);
    await sweepSourceArchives(fixture.db.orm.em.fork(), fixture.app.sourceArchives);
    expect([await store().sizeOf(used), await store().sizeOf(unused)]).toEqual([undefined, undefined]);
    expect(await store().sizeOf(keeper)).toBeGreaterThan(0);
    // Their upload URLs still work for a while: the records stay (and each sweep removes what a late PUT stored).
    expect([await rowOf(used), await rowOf(unused)]).not.toContain(undefined);
    await fixture.db.query('update source_upload set url_expires_at = now() - interval \'1 second\' where object_path = any($1)', [[used, unused]]);
    await sweepSourceArchives(fixture.db.orm.em.fork(), fixture.app.sourceArchives);
    expect([await rowOf(used), await rowOf(unused)]).toEqual([undefined, undefined]);
    expect(await rowOf(keeper)).toBeDefined();
  });

  it('removes an upload no PATCH used before it expired, and keeps a used one and one still in time', async () => {
    const id = await remoteDeployment();
    const [expired, inTime, used] = [await uploadArchive(call, id), await uploadArchive(call, id), await uploadArchive(call, id)];
    expect((await call('PATCH', `/v2/deployments/${id}`, { body: remotePatch(used) })).status).toBe(200);
    await fixture.db.query(
      'update source_upload set url_expires_at = now() - interval \'2 hours\', expires_at = now() - interval \'1 hour\', created_at = now() - interval \'3 hours\' where object_path = any($1)',
      [[expired, used]],
    );
    await sweepSourceArchives(fixture.db.orm.em.fork(), fixture.app.sourceArchives);
    expect({ object: await store().sizeOf(expired), row: await rowOf(expired) }).toEqual({ object: undefined, row: undefined });
    expect(await store().sizeOf(inTime)).toBeGreaterThan(0);
    expect(await store().sizeOf(used)).toBeGreaterThan(0);
    expect((await rowOf(used))!.used_by_revision_id).toEqual(expect.any(String));
  });
});

describe('with an S3-compatible store (s3rver, started here)', () => {
  let s3: S3Server;
  let viaS3: RunningApp;
  let s3Store: S3ObjectStore;
  beforeAll(async () => {
    s3 = await startS3Server();
    s3Store = new S3ObjectStore(s3.settings);
    viaS3 = await startApp(fixture.db.orm, fixture.cipher, undefined, { objectStore: s3Store, sourceArchiveLimits: { maxBytes: 20_000 } });
  });
  afterAll(async () => {
    await viaS3?.close();
    await s3Store?.close();
    await s3?.close();
  });
  const s3Call = restCaller(() => viaS3.url, () => fixture.keys.writer);

  it('hands out the store\'s presigned URLs: the CLI\'s PUT goes there, the PATCH finds the object, the data plane downloads it, the sweep removes it', async () => {
    const id = await remoteDeployment();
    const issued = (await s3Call('POST', `/v2/deployments/${id}/upload-url`)).json;
    expect(issued.upload_url.startsWith(`${s3.settings.endpoint}/${s3.settings.bucket}/${issued.object_path}?`)).toBe(true);
    expect(new URL(issued.upload_url).searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
    // Issued, nothing uploaded yet: HeadObject finds nothing.
    expect((await s3Call('PATCH', `/v2/deployments/${id}`, { body: remotePatch(issued.object_path) })).json.detail[0].msg)
      .toBe(`Value error, nothing was uploaded to ${issued.object_path}: PUT the archive to its upload_url first`);
    const archive = archiveOf('via s3');
    expect((await cliPut(issued.upload_url, archive)).status).toBe(200);
    const revisionId = (await s3Call('PATCH', `/v2/deployments/${id}`, { body: remotePatch(issued.object_path) })).json.latest_revision_id;
    expect(revisionId).toEqual(expect.any(String));

    const plane = restCaller(() => viaS3.url, () => fixture.keys.plane);
    let lease: { source_archive_url: string } | undefined;
    for (let i = 0; i < 50 && !lease; i++) lease = (await plane('POST', '/v2/data-plane/claims', { body: { limit: 100 } })).json.leases.find((l: { revision_id: string }) => l.revision_id === revisionId);
    expect(lease!.source_archive_url.startsWith(`${s3.settings.endpoint}/${s3.settings.bucket}/${issued.object_path}?`)).toBe(true);
    expect((await objectRequest('GET', lease!.source_archive_url)).body.equals(archive)).toBe(true);

    expect((await s3Call('DELETE', `/v2/deployments/${id}`)).status).toBe(204);
    await sweepSourceArchives(fixture.db.orm.em.fork(), viaS3.sourceArchives);
    expect(await s3Store.sizeOf(issued.object_path)).toBeUndefined();
  });

  it('refuses in the PATCH an archive the store took over the limit (a presigned PUT cannot bound its size)', async () => {
    const id = await remoteDeployment();
    const issued = (await s3Call('POST', `/v2/deployments/${id}/upload-url`)).json;
    expect((await cliPut(issued.upload_url, Buffer.alloc(20_001, 1))).status).toBe(200);
    const answer = await s3Call('PATCH', `/v2/deployments/${id}`, { body: remotePatch(issued.object_path) });
    expectJsonText(answer, 422, { detail: [valueError(['body', 'source_revision_config', 'source_tarball_path'], issued.object_path,
      `the archive at ${issued.object_path} is 20001 bytes, more than the limit of 20000`)] });
  });
});
