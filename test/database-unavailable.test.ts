// A database that cannot be reached is a temporary condition: both doors answer 503 with Retry-After at
// once (no hang, no 500), and the process keeps serving.
import { MikroORM } from '@mikro-orm/postgresql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrmConfig, type AppOrm } from '../src/db/orm-config.ts';
import { entities } from '../src/modules/entities.ts';
import { startApp, type RunningApp } from './support/app-server.ts';
import { newCipher } from './support/fixtures.ts';

let orm: AppOrm;
let app: RunningApp;
const KEY = { 'x-api-key': 'dmk_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' };

beforeAll(async () => {
  // Port 1 on loopback: nothing listens there, so every connection is refused.
  orm = (await MikroORM.init(createOrmConfig({ entities, clientUrl: 'postgresql://postgres@127.0.0.1:1/gone' }))) as unknown as AppOrm;
  app = await startApp(orm, newCipher());
});
afterAll(async () => {
  await app?.close();
  await orm?.close(true);
});

describe('with the database unreachable', () => {
  it('GraphQL answers 503 SERVICE_UNAVAILABLE with Retry-After', async () => {
    const { status, headers, body } = await app.graphql('{ tenant { name } }', KEY);
    expect(status).toBe(503);
    expect(headers.get('retry-after')).toBe('5');
    expect(body.errors[0].extensions.code).toBe('SERVICE_UNAVAILABLE');
    expect(JSON.stringify(body)).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|stack/);
  });

  it('REST answers 503 {"detail": ...} with Retry-After, for every route', async () => {
    for (const path of ['/v2/deployments', '/v1/integrations/codehost/33333333-3333-4333-8333-333333333333/repos']) {
      const response = await fetch(`${app.url}${path}`, { headers: KEY });
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('5');
      expect(await response.json()).toEqual({ detail: 'Service Unavailable: the database cannot be reached, retry shortly' });
    }
  });

  it('does not need the database to refuse a request without a key', async () => {
    const response = await fetch(`${app.url}/v2/deployments`);
    expect(response.status).toBe(401);
  });
});
