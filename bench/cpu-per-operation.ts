// CPU time of the service's own work per GraphQL operation, in-process: each query executed many times through
// graphql-js with a fresh request context each time (tenant-scoped EntityManager fork, the request's loaders),
// against the benchmark dataset (DATABASE_URL, as npm run bench). No HTTP, Yoga or authentication: what is left
// is the schema's resolvers, the loaders and the reads. `--root <checkout>` measures another checkout's code
// (a worktree of the build to compare with) with this script's queries; alternate the two on a busy machine.
//
//   node bench/cpu-per-operation.ts [--root ../other-checkout] [--rounds 3] [--operations 200]
import path from 'node:path';
import { parseArgs } from 'node:util';
import { benchIds, tenantId } from './dataset.ts';

const { values: options } = parseArgs({
  options: { root: { type: 'string', default: '.' }, rounds: { type: 'string', default: '3' }, operations: { type: 'string', default: '200' } },
});
const root = path.resolve(options.root);
const rounds = Number(options.rounds);
const operations = Number(options.operations);
const clientUrl = process.env.DATABASE_URL;
if (!clientUrl) throw new Error('DATABASE_URL must name the benchmark database (npm run bench:data)');

const { MikroORM } = await import(`${root}/node_modules/@mikro-orm/postgresql/index.js`);
const { parse, validate, execute } = await import(`${root}/node_modules/graphql/index.js`);
const { createOrmConfig } = await import(`${root}/src/db/orm-config.ts`);
// The entities the ORM is opened with; an older checkout's configuration names its own (it has no such file).
const { entities } = await import(`${root}/src/modules/entities.ts`).catch(() => ({ entities: undefined }));
const { schema } = await import(`${root}/src/graphql/schema.ts`);
const { RequestLoaders } = await import(`${root}/src/graphql/loaders.ts`);
const { scopeToTenant } = await import(`${root}/src/modules/common/tenant-scope.ts`);

const tenant = tenantId(0);
const { integrationId } = benchIds();
const queries: Record<string, string> = {
  'repositories of 50 { name url }': `{ repositories(integrationId: "${integrationId}") { name url } }`,
  'repositories of 50, the REST record\'s fields': `{ repositories(integrationId: "${integrationId}") { codeHostId name owner url defaultBranch hostIntegrationId } }`,
  'repositories of 50, every field with the integration': `{ repositories(integrationId: "${integrationId}") {
    id uuid codeHostId name owner url defaultBranch hostIntegrationId integration { id uuid kind codehost name installationId createdAt updatedAt } } }`,
  'deployments page of 20 with tag values and integration': '{ deployments(limit: 20) { resources { uuid name tagValues { uuid value tagKey { key } } integration { uuid name } } } }',
};

const orm = await MikroORM.init(createOrmConfig({ entities, clientUrl, poolMax: 2 }));
async function run(document: unknown) {
  const em = scopeToTenant(orm.em, tenant);
  const contextValue = {
    principal: { apiKeyId: 'bench', tenantId: tenant, mayReadSecrets: false }, em: () => em, loaders: new RequestLoaders(() => em, null),
    cipher: undefined, reportUnreadableSecret: () => {},
  };
  const result = await execute({ schema, document, contextValue });
  if (result.errors) throw result.errors[0];
}

const cpuPerOperation = new Map<string, number[]>();
for (let round = 0; round < rounds; round++) {
  for (const [name, text] of Object.entries(queries)) {
    const document = parse(text);
    const errors = validate(schema, document);
    if (errors.length > 0) throw errors[0];
    for (let i = 0; i < 30; i++) await run(document); // warm-up: statement templates, JIT
    const start = process.cpuUsage();
    for (let i = 0; i < operations; i++) await run(document);
    const { user, system } = process.cpuUsage(start);
    cpuPerOperation.set(name, [...(cpuPerOperation.get(name) ?? []), Math.round((user + system) / operations)]);
  }
}
await orm.close();
console.log(`${root}: CPU µs per operation, ${rounds} rounds of ${operations}`);
for (const [name, values] of cpuPerOperation) {
  const median = values.toSorted((a, b) => a - b)[Math.floor(values.length / 2)];
  console.log(`  ${name}: median ${median} (${values.join(', ')})`);
}
