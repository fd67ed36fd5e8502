// Image pushes against the real thing (issue 54; `npm run test:scale`): Debian's `docker-registry` (distribution
// 2.8) with token authentication, this service as its token server, Debian's `skopeo` pushing a small image made
// here with the push token as the CLI logs in (`oauth2accesstoken:<token>`), the CLI's PATCH, and a data plane
// pulling with its lease's token: the test's own through the REST door, examples/data-plane's simulator through
// GraphQL. Then the attacks, each refused by the registry because of what the service signed (or would not).
import { createPrivateKey, sign } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/config.ts';
import { scopeToTenant } from '../../src/modules/common/tenant-scope.ts';
import { ContainerRegistry } from '../../src/modules/registry/container-registry.ts';
import { hashOf, issuePushToken } from '../../src/modules/registry/push-tokens.ts';
import { freePort, signingKeyPair, skopeoPush, startDockerRegistry, type RunningRegistry } from '../support/docker-registry.ts';
import { startFixtureApp, type FixtureApp } from '../support/fixture-app.ts';
import { ACME, GLOBEX } from '../support/fixtures.ts';
import { makeOciImage, type OciImage } from '../support/oci-image.ts';
import { startScript } from '../support/script-run.ts';
import { restCaller } from '../support/write-calls.ts';

const SERVICE = 'gateway-test-registry';
const ISSUER = 'gateway-test';
const ZERO_DIGEST = `sha256:${'0'.repeat(64)}`;

let dir: string;
let fixture: FixtureApp<'cli' | 'plane' | 'globex'>;
let registry: ContainerRegistry;
let server: RunningRegistry;
let attackerKeyPem: string;

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'dmg-registry-test-'));
  const keys = await signingKeyPair(dir);
  attackerKeyPem = (await signingKeyPair(dir, 'attacker')).keyPem;
  const port = await freePort();
  registry = new ContainerRegistry({ url: `http://127.0.0.1:${port}`, repositoryPrefix: 'deployments', service: SERVICE, issuer: ISSUER, signingKeyPem: keys.keyPem });
  fixture = await startFixtureApp([], {
    cli: { tenants: [ACME], mayWrite: true },
    plane: { tenants: [ACME], mayReconcile: true },
    globex: { tenants: [GLOBEX], mayWrite: true },
  }, { registry });
  server = await startDockerRegistry({ port, realm: `${fixture.app.url}/registry/token`, service: SERVICE, issuer: ISSUER, certFile: keys.certFile });
}, 60_000);

afterAll(async () => {
  await server?.stop();
  await fixture?.close();
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

const call = restCaller(() => fixture.app.url, () => fixture.keys.cli);

interface Pushable {
  id: string;
  token: string;
  registryUrl: string;
}

let sequence = 0;
/** A new internal_docker deployment, created as the CLI creates one, and a push token for it. */
async function pushable(key = fixture.keys.cli): Promise<Pushable> {
  const created = await call('POST', '/v2/deployments', {
    key, body: { name: `pushed-${++sequence}-${Date.now()}`, source: 'internal_docker', source_config: { deployment_type: 'dev' }, source_revision_config: {}, secrets: [] },
  });
  expect(created.status, created.text).toBe(201);
  const answer = await call('POST', `/v2/deployments/${created.json.id}/push-token`, { key });
  expect(answer.status, answer.text).toBe(200);
  return { id: created.json.id, token: answer.json.token, registryUrl: answer.json.registry_url };
}

/** A new image in a folder of its own. */
const image = async (greeting: string): Promise<OciImage> => makeOciImage(path.join(dir, `image-${++sequence}`), greeting);

const push = (from: OciImage, destination: string, password: string) => skopeoPush(from.dir, destination, password, dir);

/** The token server's answer to a client logged in with `password` asking for `scopes`, as a registry client asks. */
async function tokenFor(password: string, scopes: string[], user = 'oauth2accesstoken'): Promise<{ status: number; json: any }> {
  const query = new URLSearchParams([['service', SERVICE], ['account', user], ...scopes.map((scope) => ['scope', scope])]);
  const response = await fetch(`${fixture.app.url}/registry/token?${query}`, { headers: { authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` } });
  return { status: response.status, json: await response.json() };
}

/** The registry's answer to a HEAD of a manifest with `bearer`. */
async function headManifest(repository: string, reference: string, bearer: string): Promise<number> {
  const response = await fetch(`${server.url}/v2/${repository}/manifests/${reference}`, {
    method: 'HEAD', headers: { authorization: `Bearer ${bearer}`, accept: 'application/vnd.oci.image.manifest.v1+json' },
  });
  return response.status;
}

/** The registry's answer to the start of a blob upload (the first write of any push) with `bearer`. */
async function startUpload(repository: string, bearer: string): Promise<number> {
  const response = await fetch(`${server.url}/v2/${repository}/blobs/uploads/`, { method: 'POST', headers: { authorization: `Bearer ${bearer}` } });
  await response.arrayBuffer();
  return response.status;
}

const repositoryOf = (registryUrl: string) => registryUrl.slice(registryUrl.indexOf('/') + 1);
const REFUSED = /unauthorized|denied|authentication required|401/i;

/** A deployment pushed to as the CLI does, and its PATCH: the image's reference by digest and the new revision. */
async function pushedAndPatched(greeting: string): Promise<Pushable & { image: OciImage; imageUri: string; revisionId: string }> {
  const target = await pushable();
  const made = await image(greeting);
  const pushed = await push(made, `${target.registryUrl}/app:latest`, target.token);
  expect(pushed.ok, pushed.output).toBe(true);
  expect(pushed.digest).toBe(made.manifestDigest);
  const imageUri = `${target.registryUrl}/app@${pushed.digest}`;
  const patched = await call('PATCH', `/v2/deployments/${target.id}`, { body: { revision_source: 'internal_docker', source_revision_config: { image_uri: imageUri } } });
  expect(patched.status, patched.text).toBe(200);
  return { ...target, image: made, imageUri, revisionId: patched.json.latest_revision_id };
}

describe('the CLI\'s push, its PATCH, and a data plane\'s pull', () => {
  let first: Awaited<ReturnType<typeof pushedAndPatched>>;

  it('answers a push token skopeo pushes with; the PATCH naming the pushed digest queues a revision', async () => {
    first = await pushedAndPatched('hello from the first image');
    expect(first.registryUrl).toBe(`${server.host}/deployments/${ACME}/${first.id}`);
    const revision = await call('GET', `/v2/deployments/${first.id}/revisions/${first.revisionId}`);
    expect(revision.json.status).toBe('QUEUED');
    // Only the token's hash is stored: nothing in its row gives the token back.
    const rows = await fixture.db.orm.em.fork().getConnection().execute('select * from registry_push_token where deployment_id = ?', [first.id]);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.token_hash).toBe(hashOf(first.token));
    expect(JSON.stringify(rows)).not.toContain(first.token);
  });

  it('gives the data plane\'s claim (REST) a token that pulls that image and nothing else, and cannot push', async () => {
    const claimed = await call('POST', '/v2/data-plane/claims', { key: fixture.keys.plane, body: { limit: 100 } });
    expect(claimed.status, claimed.text).toBe(200);
    const lease = claimed.json.leases.find((l: { revision_id: string }) => l.revision_id === first.revisionId);
    expect(lease.image_pull).toMatchObject({ registry: server.url, repository: `deployments/${ACME}/${first.id}/app`, reference: first.image.manifestDigest });
    const pull = lease.image_pull;
    expect(await headManifest(pull.repository, pull.reference, pull.token)).toBe(200);
    expect(await startUpload(pull.repository, pull.token)).toBe(401);
    // Leases of revisions whose image is elsewhere carry none.
    expect(claimed.json.leases.filter((l: { image_pull: unknown }) => l.image_pull !== null)).toHaveLength(1);
  });

  it('examples/data-plane (GraphQL door) reads the manifest with its lease\'s token and reports the image\'s size in the build log', async () => {
    const second = await pushedAndPatched('hello from the second image, a little longer');
    const simulator = startScript(path.join(PROJECT_ROOT, 'examples/data-plane/src/simulator.ts'), [], {
      GATEWAY_URL: fixture.app.url, RECONCILE_KEY: fixture.keys.plane, STEP_MS: '50',
    });
    try {
      await Promise.race([
        simulator.printed(new RegExp(`revision ${second.revisionId.slice(0, 8)}.*READY`)),
        new Promise((_, reject) => setTimeout(() => reject(new Error(`the simulator did not finish the revision:\n${simulator.stdout}`)), 30_000)),
      ]);
    } finally {
      simulator.signal('SIGKILL');
    }
    const logs = await call('POST', `/v1/projects/${second.id}/revisions/${second.revisionId}/build_logs`, { body: { order: 'asc', limit: 50 } });
    const messages = (logs.json.logs as { message: string }[]).map((line) => line.message);
    expect(messages).toContain(`[simulator] pulling ${second.registryUrl}/app@${second.image.manifestDigest}`);
    expect(messages).toContain(`[simulator] manifest ${second.image.manifestDigest}: 1 layer(s); image size ${second.image.size} bytes (${(second.image.size / 1024).toFixed(1)} KiB)`);
  });

  it('refuses a PATCH naming a manifest the registry does not have, or another deployment\'s image (422, never 500)', async () => {
    const other = await pushable();
    const missing = await call('PATCH', `/v2/deployments/${other.id}`, { body: { revision_source: 'internal_docker', source_revision_config: { image_uri: `${other.registryUrl}/app@${ZERO_DIGEST}` } } });
    expect(missing.status, missing.text).toBe(422);
    expect(missing.json.detail[0]).toMatchObject({
      loc: ['body', 'source_revision_config', 'image_uri'],
      msg: `Value error, ${other.registryUrl}/app@${ZERO_DIGEST} is not in the registry: push the image first (with the token of POST …/push-token)`,
    });
    const borrowed = await call('PATCH', `/v2/deployments/${other.id}`, { body: { revision_source: 'internal_docker', source_revision_config: { image_uri: first.imageUri } } });
    expect(borrowed.status, borrowed.text).toBe(422);
    expect(borrowed.json.detail[0].msg).toContain(`deployed only by the deployment they were pushed for: this one's are under ${other.registryUrl}`);
  });
});

describe('attacks, refused by the registry', () => {
  let victim: Awaited<ReturnType<typeof pushedAndPatched>>;
  let victimRepository: string;
  beforeAll(async () => {
    victim = await pushedAndPatched('the victim\'s image');
    victimRepository = `${repositoryOf(victim.registryUrl)}/app`;
  });

  it('a push token used for another deployment\'s repository: granted nothing there, so the registry refuses', async () => {
    const attacker = await pushable();
    const pushed = await push(await image('overwrite the victim'), `${victim.registryUrl}/app:latest`, attacker.token);
    expect(pushed.ok).toBe(false);
    expect(pushed.output).toMatch(REFUSED);
    const granted = await tokenFor(attacker.token, [`repository:${victimRepository}:push,pull`, `repository:${repositoryOf(attacker.registryUrl)}/app:push,pull`]);
    expect(granted.status).toBe(200);
    const access = JSON.parse(Buffer.from(granted.json.token.split('.')[1], 'base64url').toString()).access;
    expect(access).toEqual([{ type: 'repository', name: `${repositoryOf(attacker.registryUrl)}/app`, actions: ['pull', 'push'] }]);
    expect(await headManifest(victimRepository, victim.image.manifestDigest, granted.json.token)).toBe(401);
    expect(await startUpload(victimRepository, granted.json.token)).toBe(401);
    // The same token is good on the attacker's own repository: the refusal is the scope's.
    expect(await startUpload(`${repositoryOf(attacker.registryUrl)}/app`, granted.json.token)).toBe(202);
  });

  it('another tenant\'s push token and pull token: nothing of ACME\'s is granted to GLOBEX', async () => {
    const globex = await pushable(fixture.keys.globex);
    expect(globex.registryUrl).toBe(`${server.host}/deployments/${GLOBEX}/${globex.id}`);
    const pushed = await push(await image('globex was here'), `${victim.registryUrl}/app:latest`, globex.token);
    expect(pushed.ok).toBe(false);
    const granted = await tokenFor(globex.token, [`repository:${victimRepository}:pull`]);
    expect(granted.status).toBe(200);
    expect(await headManifest(victimRepository, victim.image.manifestDigest, granted.json.token)).toBe(401);
    // And GLOBEX's own image is out of reach of ACME's data plane's token, which names one repository.
    const own = await push(await image('globex image'), `${globex.registryUrl}/app:latest`, globex.token);
    expect(own.ok, own.output).toBe(true);
    const acmePull = registry.pullGrant(ACME, victim.id, victim.imageUri)!;
    expect(await headManifest(victimRepository, victim.image.manifestDigest, acmePull.token)).toBe(200);
    expect(await headManifest(`${repositoryOf(globex.registryUrl)}/app`, own.digest!, acmePull.token)).toBe(401);
  });

  it('after expiry: an expired push token gets no token; a token the service signed that has expired is refused', async () => {
    const em = scopeToTenant(fixture.db.orm.em, ACME);
    const twoHoursAgo = new Date(Date.now() - 2 * 60 * 60 * 1000);
    const stale = await issuePushToken(em, ACME, victim.id, (await apiKeyIdOf(victim.token))!, 3600, twoHoursAgo);
    expect((await tokenFor(stale.token, [`repository:${victimRepository}:push,pull`])).status).toBe(401);
    const pushed = await push(await image('too late'), `${victim.registryUrl}/app:latest`, stale.token);
    expect(pushed.ok).toBe(false);
    expect(pushed.output).toMatch(REFUSED);
    // Past the registry's 60 s leeway (distribution's token.go), and the same claims still good: only `exp` differs.
    const access = [{ type: 'repository' as const, name: victimRepository, actions: ['pull' as const] }];
    const expired = registry.signer.sign({ subject: 'expired', access, issuedAt: new Date(Date.now() - 10 * 60_000), expiresAt: new Date(Date.now() - 2 * 60_000) });
    const current = registry.signer.sign({ subject: 'current', access, issuedAt: new Date(), expiresAt: new Date(Date.now() + 60_000) });
    expect(await headManifest(victimRepository, victim.image.manifestDigest, expired)).toBe(401);
    expect(await headManifest(victimRepository, victim.image.manifestDigest, current)).toBe(200);
  });

  it('after the deployment is deleted: its push token gets no token, so the registry refuses the push', async () => {
    const doomed = await pushable();
    const before = await push(await image('before the delete'), `${doomed.registryUrl}/app:latest`, doomed.token);
    expect(before.ok, before.output).toBe(true);
    expect((await call('DELETE', `/v2/deployments/${doomed.id}`)).status).toBe(204);
    expect((await tokenFor(doomed.token, [`repository:${repositoryOf(doomed.registryUrl)}/app:push,pull`])).status).toBe(401);
    const after = await push(await image('after the delete'), `${doomed.registryUrl}/app:latest`, doomed.token);
    expect(after.ok).toBe(false);
    expect(after.output).toMatch(REFUSED);
  });

  it('after the key that asked for it is revoked: the push token gets no token', async () => {
    const target = await pushable();
    expect((await tokenFor(target.token, [])).status).toBe(200);
    await fixture.db.orm.em.fork().getConnection().execute('update api_key set revoked_at = now() where id = ?', [await apiKeyIdOf(target.token)]);
    expect((await tokenFor(target.token, [`repository:${repositoryOf(target.registryUrl)}/app:push`])).status).toBe(401);
    const refused = await push(await image('revoked'), `${target.registryUrl}/app:latest`, target.token);
    expect(refused.ok).toBe(false);
  });

  it('a forged signature: the same claims signed by another key, under the service\'s key id or the forger\'s, are refused', async () => {
    const access = [{ type: 'repository', name: victimRepository, actions: ['pull', 'push'] }];
    const now = Math.floor(Date.now() / 1000);
    const claims = { iss: ISSUER, sub: 'forger', aud: SERVICE, exp: now + 300, nbf: now, iat: now, jti: 'forged', access };
    const forged = (kid: string) => {
      const signed = `${Buffer.from(JSON.stringify({ typ: 'JWT', alg: 'ES256', kid })).toString('base64url')}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
      return `${signed}.${sign('sha256', Buffer.from(signed), { key: createPrivateKey(attackerKeyPem), dsaEncoding: 'ieee-p1363' }).toString('base64url')}`;
    };
    const forger = new ContainerRegistry({ ...registry.settings, signingKeyPem: attackerKeyPem });
    for (const token of [forged(registry.signer.keyId), forged(forger.signer.keyId)]) {
      expect(await headManifest(victimRepository, victim.image.manifestDigest, token)).toBe(401);
      expect(await startUpload(victimRepository, token)).toBe(401);
    }
    // The token server itself: a wrong user name, or a password that is no push token, gets nothing.
    expect((await tokenFor(victim.token, [], 'admin')).status).toBe(401);
    expect((await tokenFor('dpt_guessed', [])).status).toBe(401);
  });
});

/** The key that asked for a push token (from its row, found by the token's hash). */
async function apiKeyIdOf(token: string): Promise<string | undefined> {
  const [row] = await fixture.db.orm.em.fork().getConnection().execute('select api_key_id from registry_push_token where token_hash = ?', [hashOf(token)]);
  return row?.api_key_id;
}
