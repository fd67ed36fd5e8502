// Tenant scoping is enforced by the data layer: a query of a tenant-owned entity without a tenant scope
// throws instead of returning every tenant's rows, and a scoped query never sees another tenant's rows.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TenantScopeMissingError } from '../src/db/tenant-filter.ts';
import { scopeToTenant } from '../src/modules/common/tenant-scope.ts';
import { DeploymentSchema } from '../src/modules/deployments/deployment.entity.ts';
import { DEPLOYMENT_STATUSES } from '../src/modules/deployments/deployment-enums.ts';
import { SecretSchema } from '../src/modules/deployments/secret.entity.ts';
import { secretsAndReferencesOf } from '../src/modules/deployments/secret-listing.ts';
import { TagValueSchema } from '../src/modules/deployments/tag.entity.ts';
import { IntegrationSchema } from '../src/modules/integrations/integration.entity.ts';
import { SourceRepositorySchema } from '../src/modules/integrations/source-repository.entity.ts';
import { TenantSchema } from '../src/modules/tenancy/tenant.entity.ts';
import { ApiKeySchema, CredentialsAccessError } from '../src/modules/tenancy/api-key.entity.ts';
import { UnfilteredQueryBuilderError } from '../src/db/tenant-safe-entity-manager.ts';
import { createTestDatabase, type TestDatabase } from './support/test-database.ts';
import {
  issueKey,
  ACME, ACME_DEPLOYMENT, ACME_INTEGRATION, GLOBEX, GLOBEX_DEPLOYMENT, GLOBEX_INTEGRATION, importFixture, newCipher,
} from './support/fixtures.ts';

describe('tenant filter', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
    await importFixture(db.orm.em, newCipher());
  });
  afterAll(() => db.drop());

  it('makes an unscoped query of a tenant-owned entity throw, for every kind of read', async () => {
    const em = db.orm.em.fork();
    await expect(em.find(DeploymentSchema, {})).rejects.toThrow(TenantScopeMissingError);
    await expect(em.findOne(DeploymentSchema, { id: GLOBEX_DEPLOYMENT })).rejects.toThrow(TenantScopeMissingError);
    await expect(em.count(SecretSchema, {})).rejects.toThrow(TenantScopeMissingError);
    await expect(em.getRepository(SourceRepositorySchema).findAll()).rejects.toThrow(TenantScopeMissingError);
    await expect(em.getRepository(TagValueSchema).find({ value: 'prod' })).rejects.toThrow(/without a tenant scope/);
  });

  it('makes a custom repository method without a tenant throw instead of returning another tenant\'s row', async () => {
    const unscoped = db.orm.em.fork().getRepository(IntegrationSchema);
    await expect(unscoped.findRowsByIds([GLOBEX_INTEGRATION])).rejects.toThrow(TenantScopeMissingError);
  });

  it('shows a scoped EntityManager only its own tenant\'s rows', async () => {
    const acme = scopeToTenant(db.orm.em, ACME);
    expect((await acme.find(DeploymentSchema, {})).map((d) => d.id)).toEqual([ACME_DEPLOYMENT]);
    expect(await acme.count(SecretSchema, {})).toBe(2);
    expect((await acme.getRepository(IntegrationSchema).findRowsByIds([ACME_INTEGRATION])).map((row) => row?.kind)).toEqual(['codehost']);

    const globex = scopeToTenant(db.orm.em, GLOBEX);
    expect((await globex.find(DeploymentSchema, {})).map((d) => d.id)).toEqual([GLOBEX_DEPLOYMENT]);
    expect(await globex.count(SecretSchema, {})).toBe(1);
  });

  it('treats another tenant\'s row as missing, even when asked for by id', async () => {
    const acme = scopeToTenant(db.orm.em, ACME);
    expect(await acme.findOne(DeploymentSchema, { id: GLOBEX_DEPLOYMENT })).toBeNull();
    expect(await acme.getRepository(IntegrationSchema).findRowsByIds([GLOBEX_INTEGRATION])).toEqual([null]);
    expect(await acme.find(SecretSchema, { deployment: GLOBEX_DEPLOYMENT })).toEqual([]);
  });

  it('scopes relations loaded through populate too', async () => {
    const globex = scopeToTenant(db.orm.em, GLOBEX);
    // Even a caller who crafts a condition across a relation only reaches its own tenant's rows.
    const secrets = await globex.find(SecretSchema, { deployment: { id: { $in: [ACME_DEPLOYMENT, GLOBEX_DEPLOYMENT] } } }, { populate: ['deployment'] });
    expect(secrets.map((s) => s.name)).toEqual(['OTHER_SECRET']);
  });

  it('refuses a raw QueryBuilder over tenant-owned entities; the filtered one fails closed and scopes', async () => {
    expect(() => db.orm.em.fork().createQueryBuilder(DeploymentSchema)).toThrow(UnfilteredQueryBuilderError);
    expect(() => scopeToTenant(db.orm.em, ACME).getRepository(SecretSchema).createQueryBuilder('s')).toThrow(UnfilteredQueryBuilderError);
    await expect(db.orm.em.fork().filteredQueryBuilder(DeploymentSchema, 'd')).rejects.toThrow(TenantScopeMissingError);

    const qb = await scopeToTenant(db.orm.em, ACME).filteredQueryBuilder(DeploymentSchema, 'd');
    expect((await qb.select('id').getResult()).map((d) => d.id)).toEqual([ACME_DEPLOYMENT]);
    const count = await (await scopeToTenant(db.orm.em, GLOBEX).filteredQueryBuilder(SecretSchema, 's')).getCount();
    expect(count).toBe(1);
  });

  // Page statements are built once per shape of query and reused (statement-templates.ts): the tenant must
  // come from the EntityManager running each query, never from the one that built the statement.
  it('fills every reuse of a page statement with its own tenant, and refuses to run one without a tenant', async () => {
    const page = (em: ReturnType<typeof scopeToTenant>) =>
      em.getRepository(DeploymentSchema).findPage({ status: { $in: [...DEPLOYMENT_STATUSES] } }, 20, 0, ['name']);
    for (let round = 0; round < 3; round++) {
      const [acme, globex] = await Promise.all([page(scopeToTenant(db.orm.em, ACME)), page(scopeToTenant(db.orm.em, GLOBEX))]);
      expect(acme.deployments.map((d) => d.id)).toEqual([ACME_DEPLOYMENT]);
      expect(globex.deployments.map((d) => d.id)).toEqual([GLOBEX_DEPLOYMENT]);
    }
    // A filter only some EntityManagers carried would be missing from statements the others built.
    expect(() => scopeToTenant(db.orm.em, ACME).addFilter({ name: 'extra', cond: { name: 'x' } } as never)).toThrow(/addFilter is not supported/);
    await expect(db.orm.em.fork().getRepository(DeploymentSchema).findPage({ status: { $in: [...DEPLOYMENT_STATUSES] } }, 20, 0, ['name']))
      .rejects.toThrow(TenantScopeMissingError);
  });

  it('lets a request see its own tenant only, and no API keys at all', async () => {
    await issueKey(db.orm.em, [ACME]);
    const acme = scopeToTenant(db.orm.em, ACME);
    expect((await acme.find(TenantSchema, {})).map((t) => t.name)).toEqual(['acme']);
    expect(await acme.findOne(TenantSchema, { id: GLOBEX })).toBeNull();
    await expect(db.orm.em.fork().find(TenantSchema, {})).rejects.toThrow(TenantScopeMissingError);
    await expect(acme.find(ApiKeySchema, {})).rejects.toThrow(CredentialsAccessError);
    await expect(acme.count(ApiKeySchema, {})).rejects.toThrow(CredentialsAccessError);
  });

  it("keeps the hand-written secrets listing within the scope: it throws without one, and never returns another tenant's secrets", async () => {
    const withCiphertexts = true;
    await expect(secretsAndReferencesOf(db.orm.em.fork() as never, [GLOBEX_DEPLOYMENT], withCiphertexts)).rejects.toThrow(TenantScopeMissingError);
    const acme = scopeToTenant(db.orm.em, ACME);
    const [own, foreign] = await secretsAndReferencesOf(acme, [ACME_DEPLOYMENT, GLOBEX_DEPLOYMENT], withCiphertexts);
    expect(own!.secrets.length).toBeGreaterThan(0);
    expect(own!.references.length).toBeGreaterThan(0);
    expect(foreign).toEqual({ secrets: [], references: [] });
    const globex = scopeToTenant(db.orm.em, GLOBEX);
    const [ofGlobex] = await secretsAndReferencesOf(globex, [GLOBEX_DEPLOYMENT], withCiphertexts);
    expect(ofGlobex!.secrets.map((secret) => secret.name)).toEqual(['OTHER_SECRET']);
  });

  // Its ids are written into the statement as literals (modules/common/uuid.ts), each checked to be a UUID.
  it('writes nothing but UUIDs into the secrets listing: an id that would break out of its quotes is refused', async () => {
    const acme = scopeToTenant(db.orm.em, ACME);
    const injection = `${ACME_DEPLOYMENT}') or true or deployment_id in ('${GLOBEX_DEPLOYMENT}`;
    await expect(secretsAndReferencesOf(acme, [ACME_DEPLOYMENT, injection], true)).rejects.toThrow('not a UUID');
    await expect(secretsAndReferencesOf(acme, [`${GLOBEX_DEPLOYMENT}'`], true)).rejects.toThrow('not a UUID');
  });

  // A page's tag values are read through the pivot table, which has no tenant of its own: the deployments and
  // the values are each limited to the tenant, so a link to another tenant's value (a damaged row) shows nothing.
  it("keeps a page's tag values within the tenant, even where the pivot links another tenant's value", async () => {
    const [prod, payments] = ['77777777-7777-4777-8777-777777777771', '77777777-7777-4777-8777-777777777773'];
    await db.query('insert into deployment_tag_value (deployment_id, tag_value_id) values ($1, $2)', [GLOBEX_DEPLOYMENT, prod]);
    try {
      const valuesOf = (tenant: string) => scopeToTenant(db.orm.em, tenant).getRepository(TagValueSchema).valuesOfDeployments([ACME_DEPLOYMENT, GLOBEX_DEPLOYMENT]);
      const ids = (lists: { id: string }[][]) => lists.map((values) => values.map((value) => value.id).sort());
      for (let round = 0; round < 2; round++) {
        const [acme, globex] = await Promise.all([valuesOf(ACME), valuesOf(GLOBEX)]);
        expect(ids(acme)).toEqual([[prod, payments].sort(), []]);
        expect(ids(globex)).toEqual([[], []]);
      }
      await expect(db.orm.em.fork().getRepository(TagValueSchema).valuesOfDeployments([GLOBEX_DEPLOYMENT])).rejects.toThrow(TenantScopeMissingError);
    } finally {
      await db.query('delete from deployment_tag_value where deployment_id = $1', [GLOBEX_DEPLOYMENT]);
    }
  });

  it('rejects an empty tenant id as a scope', async () => {
    await expect(scopeToTenant(db.orm.em, '').find(DeploymentSchema, {})).rejects.toThrow(TenantScopeMissingError);
  });
});
