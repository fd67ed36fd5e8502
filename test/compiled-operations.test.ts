// Operations run compiled by graphql-jit (src/graphql/compiled-operations.plugin.ts, CompiledOperations), not by
// graphql-js, whose execute() is the reference (issue 41). A client must not be able to tell: every document
// the project really runs (support/operation-corpus.ts: the REST routes' operations with the variables of
// realistic calls, the example frontend's, GraphiQL's, the docs', the tests' and their builders'), with
// variables made from where each is used (support/operation-variables.ts: real ids of this tenant and others,
// unknown and malformed ones, nulls, left out for the argument's default), for keys with and without the
// read-secrets permission, of three tenants, gets the same data and the same errors (message, path,
// locations, extensions, and what the app's masking leaves of them) from both, each run with a context of its
// own made by the app's createGraphQLContext. A stored secret is damaged, so that errors in the middle of
// lists are compared too. What the app never executes is counted, not compared: documents it runs on
// graphql-js (variables with default values: runsInterpreted), subscriptions, documents its limits refuse, and
// runs its cost limit refuses, among them every variable of the wrong type (graphql-jit words that refusal
// differently, "Variable "$after" got invalid value {...}; Expected type String; String cannot ...", so the
// cost limit must keep refusing such variables before execution).
import { randomUUID } from 'node:crypto';
import { execute, getOperationAST, Kind, parse, type DocumentNode, type ExecutionResult, type GraphQLError, type OperationDefinitionNode } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seeded } from '../bench/dataset.ts';
import { createApp, type App } from '../src/app.ts';
import { buildDemoDocument, DEMO_TENANT_ID } from '../src/demo/demo-dataset.ts';
import { CompiledOperations } from '../src/graphql/compiled-operations.plugin.ts';
import { callerOf } from '../src/graphql/caller.ts';
import { createGraphQLContext, type AppServices } from '../src/graphql/context.ts';
import { maskUnexpectedError, UNEXPECTED_ERROR_MESSAGE } from '../src/graphql/mask-error.ts';
import { schema } from '../src/graphql/schema.ts';
import { hasVariableDefaults } from '../src/graphql/variable-defaults.ts';
import { importDocument } from '../src/import/importer.ts';
import { GRAPHQL_LIMITS } from '../src/limits/graphql-limits.ts';
import { queryCostLimit } from '../src/limits/query-cost.plugin.ts';
import { ACME, ACME_DEPLOYMENT, ACME_INTEGRATION, GLOBEX, GLOBEX_DEPLOYMENT, GLOBEX_INTEGRATION, importFixture, issueKey, newCipher } from './support/fixtures.ts';
import { handMadeGlobalId, importExtra } from './support/graphql-expect.ts';
import { operationCorpus, type CorpusEntry, type CorpusSource } from './support/operation-corpus.ts';
import { variableSets, type ValuePools, type Variables } from './support/operation-variables.ts';
import { ACME_EMPTY, ACME_MANAGED, ACME_ORDERING, REPOSITORIES_DOCUMENT } from './support/repository-data.ts';
import { GLOBEX_APP_REVISIONS, HISTORY_APP, HISTORY_REVISIONS, REVISIONS_DOCUMENT } from './support/revision-data.ts';
import { TENANCY_DOCUMENT } from './support/tenancy-data.ts';
import { createTestDatabase, type TestDatabase } from './support/test-database.ts';

const UNKNOWN = '0badc0de-0000-4000-8000-000000000000';
const CHECKOUT_DEPLOYED = '66666666-6666-4666-8666-666666666661';

let db: TestDatabase;
let services: AppServices;
/** The callers, by the headers they send. */
let callers: Record<'acme' | 'acmeSecrets' | 'globexSecrets' | 'demo', Record<string, string>>;
let pools: ValuePools;
let corpus: CorpusEntry[];
/** One for the whole file, as the app has: each operation compiled once, then run for every caller and variables. */
const compiled = new CompiledOperations(hasVariableDefaults);
/** The app's cost limit, which refuses a run before execution (as the envelop and prepared operations do). */
const queryCost = queryCostLimit(GRAPHQL_LIMITS.maxCost);
/** The app, not listening: its envelop's parse and validation tell which documents its limits refuse. */
let app: App;

beforeAll(async () => {
  db = await createTestDatabase();
  const cipher = newCipher();
  await importFixture(db.orm.em.fork(), cipher);
  await importDocument(db.orm.em.fork(), JSON.stringify(buildDemoDocument()), cipher);
  for (const extra of [REVISIONS_DOCUMENT, REPOSITORIES_DOCUMENT, TENANCY_DOCUMENT]) await importExtra(db.orm.em, cipher, extra);
  // One secret that cannot be decrypted (test/unreadable-secret.test.ts): a SECRET_UNREADABLE error in a list.
  await db.query(`update secret set value_ciphertext = set_byte(value_ciphertext, 20, get_byte(value_ciphertext, 20) # 1)
                   where deployment_id = $1 and name = 'DB_PASSWORD'`, [ACME_DEPLOYMENT]);
  services = { orm: db.orm, cipher };
  app = createApp(services);
  callers = {
    acme: { 'x-api-key': await issueKey(db.orm.em, [ACME]) },
    acmeSecrets: { 'x-api-key': await issueKey(db.orm.em, [ACME], true) },
    globexSecrets: { 'x-api-key': await issueKey(db.orm.em, [ACME, GLOBEX], true), 'x-tenant-id': GLOBEX },
    demo: { 'x-api-key': await issueKey(db.orm.em, [DEMO_TENANT_ID]) },
  };
  pools = await valuePools();
  corpus = await operationCorpus();
});
afterAll(async () => {
  app?.deploymentChanges.stop();
  await db?.drop();
});

/** A context of its own, as the app makes one for a request with these headers (its caller authenticated first). */
const contextFor = async (headers: Record<string, string>) =>
  createGraphQLContext(await callerOf({ requestId: randomUUID() }, new Headers(headers), services), services);

/** graphql-js, the reference. */
async function interpreted(document: DocumentNode, operationName: string | undefined, variables: Variables, headers: Record<string, string>) {
  return execute({ schema, document, operationName, variableValues: variables, contextValue: await contextFor(headers) });
}

/** graphql-jit, as the app runs an operation (runner/run-operation.ts, useCompiledOperations). */
async function compiledRun(document: DocumentNode, operationName: string | undefined, variables: Variables, headers: Record<string, string>) {
  const operation = compiled.of({ schema, document, operationName });
  return operation.query(undefined, await contextFor(headers), variables) as ExecutionResult | Promise<ExecutionResult>;
}

/**
 * What a client can see of a result: the data, and each error as it is and as the app's masking leaves it. The
 * errors in the order of their JSON: they are listed as resolvers fail, and fields waiting on different database
 * queries fail in the order the queries return; graphql-js alone listed the errors of two root fields reading
 * the broken secret in one order 18 times and in the other 27 times, in 45 runs.
 */
const seen = (result: ExecutionResult) => JSON.parse(JSON.stringify({
  data: result.data,
  errors: result.errors?.map((error) => JSON.stringify({
    message: error.message, path: error.path, locations: error.locations, extensions: error.extensions,
    masked: (maskUnexpectedError(error, UNEXPECTED_ERROR_MESSAGE) as GraphQLError).toJSON(),
  })).toSorted().map((error) => JSON.parse(error)),
})) as Seen;

interface Seen {
  data?: unknown;
  errors?: Array<{ path?: Array<string | number>; extensions?: { code?: string } }>;
}

/** Whether an object above the path (the data itself included) is null: a non-null field's error nulled it. */
function underNull(data: unknown, path: Array<string | number>): boolean {
  let value = data;
  for (const key of path) {
    if (value === null) return true;
    value = (value as Record<string | number, unknown>)[key];
  }
  return false;
}

/**
 * The one difference found and allowed (issue 41): where a non-null field's error nulls the object around it,
 * graphql-js stops running that object's other fields at the first error thrown at once (the resolver's own
 * argument check), graphql-jit runs them all and lists their errors too. The data is the same; the compiled
 * answer has errors more, each under the nulled object. E.g. `{ a: node(id: $id) { id } b: nodes(ids: [$id])
 * { id } c: node(id: $id) { id } }` with a malformed id: graphql-js reports a and b, graphql-jit a, b and c.
 */
function onlyMoreErrorsUnderNull(compiled: Seen, interpreted: Seen): boolean {
  if (JSON.stringify(compiled.data) !== JSON.stringify(interpreted.data)) return false;
  const extra = (compiled.errors ?? []).map((error) => JSON.stringify(error));
  for (const error of interpreted.errors ?? []) {
    const at = extra.indexOf(JSON.stringify(error));
    if (at < 0) return false;
    extra.splice(at, 1);
  }
  return extra.length > 0 && extra.every((error) => underNull(compiled.data, (JSON.parse(error) as { path?: Array<string | number> }).path ?? []));
}

interface Found {
  tenant: { id: string };
  integrations: Array<{ id: string; uuid: string }>;
  tagKeys: Array<{ id: string; values: Array<{ id: string; uuid: string }> }>;
  deployments: { resources: Array<{ id: string; uuid: string; revisions: Array<{ id: string; uuid: string }> }> };
  deploymentsConnection: { edges: Array<{ cursor: string }> };
  history: { revisionsConnection: { edges: Array<{ cursor: string }> } } | null;
}

/** Real ids of every kind and tenant, read through graphql-js, and the values the variables are made from. */
async function valuePools(): Promise<ValuePools> {
  const harvest = parse(`{ tenant { id } integrations { id uuid } tagKeys { id values { id uuid } }
    deployments(limit: 100) { resources { id uuid revisions { id uuid } } } deploymentsConnection(first: 3) { edges { cursor } }
    history: deployment(id: "${HISTORY_APP}") { revisionsConnection(first: 3) { edges { cursor } } } }`);
  const [acme, globex, demo] = await Promise.all([callers.acmeSecrets, callers.globexSecrets, callers.demo].map(async (headers) => {
    const { data, errors } = await interpreted(harvest, undefined, {}, headers);
    expect(errors?.filter((error) => error.extensions.code !== 'SECRET_UNREADABLE')).toBeFalsy();
    return data as unknown as Found;
  }));
  const tenants = [acme!, globex!, demo!];
  const deployments = tenants.flatMap((found) => found.deployments.resources.slice(0, 3));
  const revisions = tenants.flatMap((found) => found.deployments.resources.flatMap((d) => d.revisions).slice(0, 2));
  const globalIds = tenants.flatMap((found) => [found.tenant.id, ...found.integrations.slice(0, 2).map((i) => i.id),
    ...found.tagKeys.slice(0, 1).flatMap((k) => [k.id, ...k.values.slice(0, 1).map((v) => v.id)]),
    ...found.deployments.resources.slice(0, 2).map((d) => d.id)]).concat(revisions.map((r) => r.id));
  const deploymentCursors = tenants.flatMap((found) => found.deploymentsConnection.edges.map((e) => e.cursor));
  const revisionCursors = acme!.history!.revisionsConnection.edges.map((e) => e.cursor);
  const tagValueIds = tenants.flatMap((found) => found.tagKeys.flatMap((k) => k.values.slice(0, 2).map((v) => v.uuid)));
  const deploymentIds = [ACME_DEPLOYMENT, deployments[0]!.id, ACME_DEPLOYMENT.toUpperCase(), HISTORY_APP, GLOBEX_DEPLOYMENT,
    ...deployments.slice(3).map((d) => d.uuid), UNKNOWN, handMadeGlobalId('Revision', ACME_DEPLOYMENT), 'nope', ''];
  const integrationIds = [ACME_INTEGRATION, ACME_MANAGED, ACME_ORDERING, ACME_EMPTY, GLOBEX_INTEGRATION, acme!.integrations[0]!.id, UNKNOWN, 'nope'];
  const revisionIds = [CHECKOUT_DEPLOYED, HISTORY_REVISIONS[0]!.id, revisions[0]!.id, GLOBEX_APP_REVISIONS[0]!, UNKNOWN, 'nope'];
  const deploymentFilters = [{ statuses: ['READY'] }, {}, { nameContains: 'prod' }, { ids: deploymentIds.slice(0, 6) },
    { tagValueIds: tagValueIds.slice(0, 3) }, { deploymentType: 'PROD', remoteReconciled: false }, { nameContains: '%', statuses: [] },
    { ids: ['nope'] }];
  const revisionFilters = [{ statuses: ['DEPLOYED', 'QUEUED'] }, {}, { remoteReconciled: true }, { statuses: [] }];
  const pageSizes = [20, 1, 4, 100, 0, 101];
  const offsets = [0, 2, 55, 2_147_483_647, -1];
  const firsts = [3, 1, 100, 0];
  const nodeIds = [...globalIds, handMadeGlobalId('Deployment', UNKNOWN), handMadeGlobalId('Nope', UNKNOWN), 'nope'];
  return new Map<string, unknown[]>([
    ['Query.deployment.id', deploymentIds],
    ['Query.node.id', nodeIds], ['Query.nodes.ids', nodeIds],
    ['Query.repositories.integrationId', integrationIds], ['Query.managedRepositories.integrationId', integrationIds],
    ['Deployment.revision.id', revisionIds],
    ['Query.deployments.filter', deploymentFilters], ['Query.deploymentsConnection.filter', deploymentFilters],
    ['DeploymentFilter.ids', deploymentIds], ['DeploymentFilter.tagValueIds', tagValueIds], ['DeploymentFilter.nameContains', ['prod', 'literal-needle', '%', '']],
    ['Deployment.revisionPage.filter', revisionFilters], ['Deployment.revisionsConnection.filter', revisionFilters],
    ['Query.deployments.limit', pageSizes], ['Deployment.revisionPage.limit', pageSizes],
    ['Query.deployments.offset', offsets], ['Deployment.revisionPage.offset', offsets],
    ['Query.deploymentsConnection.first', firsts], ['Query.deploymentsConnection.last', firsts],
    ['Deployment.revisionsConnection.first', firsts], ['Deployment.revisionsConnection.last', firsts],
    ['Query.deploymentsConnection.after', [...deploymentCursors, revisionCursors[0], 'nope']],
    ['Query.deploymentsConnection.before', [...deploymentCursors.toReversed(), 'nope']],
    ['Deployment.revisionsConnection.after', [...revisionCursors, deploymentCursors[0], 'nope']],
    ['Deployment.revisionsConnection.before', [...revisionCursors.toReversed(), 'nope']],
    ['Query.integrations.kind', ['CODEHOST', 'MANAGED']], ['Query.integrations.codehost', ['github', 'gitlab', 'GitHub']],
    ['Query.integrations.installed', [true, false]],
  ]);
}

interface Tally {
  documents: number;
  /** Runs compared (operation × variables × caller). */
  runs: number;
  /** Of those, runs with errors (in the reference's answer). */
  withErrors: number;
  /** Error codes in the reference's answers, with how often. */
  codes: Map<string, number>;
  /** Documents the app runs on graphql-js (variables with default values): not compared. */
  interpretedByTheApp: string[];
  /** Documents the app's limits refuse before execution (depth, aliases, directives, tokens): not run. */
  refusedDocuments: string[];
  /** Runs the cost limit refuses before execution (too costly, or variables that do not fit): not run. */
  refusedRuns: number;
  /** Runs where the compiled answer has more errors under a nulled object (onlyMoreErrorsUnderNull). */
  moreErrorsUnderNull: number;
  subscriptions: number;
}

interface Difference { label: string; compiled?: unknown; interpreted?: unknown }

/** Why the app refuses the operation before executing it (its parse and validation, limits included), if it does. */
function documentRefusal(text: string, operationName: string | undefined): string | undefined {
  const enveloped = app.yoga.getEnveloped({ request: new Request('http://localhost/graphql'), params: { query: text, operationName } });
  try {
    return enveloped.validate(enveloped.schema, enveloped.parse(text))[0]?.message;
  } catch (error) {
    return (error as Error).message; // the token limit, while parsing
  }
}

/** Each query operation of the entry (by name where the document has several), with its variable sets. */
function runsOf(entry: CorpusEntry, document: DocumentNode, random: ReturnType<typeof seeded>): Array<{ operation: OperationDefinitionNode; operationName?: string; variables: Variables[] }> {
  const operations = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  return operations.map((operation) => ({
    operation,
    operationName: operations.length > 1 ? operation.name!.value : undefined,
    variables: entry.variables ?? variableSets(schema, document, operation, pools, random),
  }));
}

/** Runs `tasks` with at most `parallel` of them at once (the test database has four connections). */
async function inParallel(tasks: Array<() => Promise<void>>, parallel = 3): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: parallel }, async () => {
    while (next < tasks.length) await tasks[next++]!();
  }));
}

/**
 * Runs every entry of a source both ways: the first variable set as every caller, each other set as one
 * caller picked at random. The runs that differ, the first few with what each side gave.
 */
async function compare(source: CorpusSource): Promise<{ tally: Tally; differences: Difference[] }> {
  const tally: Tally = { documents: 0, runs: 0, withErrors: 0, codes: new Map(), interpretedByTheApp: [], refusedDocuments: [], refusedRuns: 0, moreErrorsUnderNull: 0, subscriptions: 0 };
  const differences: Difference[] = [];
  const random = seeded(41);
  const tasks: Array<() => Promise<void>> = [];
  const shown = (text: string) => text.replace(/\s+/g, ' ').slice(0, 100);
  // CORPUS_ONLY=<text>: only the documents that contain it (to look at one difference).
  const only = process.env.CORPUS_ONLY;
  for (const entry of corpus.filter((candidate) => candidate.source === source && (!only || candidate.text.includes(only)))) {
    tally.documents++;
    // As Yoga's parse cache does: one parsed document for every run of the same text.
    const document = parse(entry.text);
    if (compiled.runsInterpreted(document)) {
      tally.interpretedByTheApp.push(`${entry.origin}: ${shown(entry.text)}`);
      continue;
    }
    for (const { operation, operationName, variables } of runsOf(entry, document, random)) {
      if (operation.operation !== 'query') {
        tally.subscriptions++;
        continue;
      }
      // The REST routes' own documents skip the limits made for clients' documents (rest-plugin.ts).
      const refusal = source === 'rest' ? undefined : documentRefusal(entry.text, operationName);
      if (refusal) {
        tally.refusedDocuments.push(`${entry.origin} ${operationName ?? ''}: ${shown(entry.text)} (${refusal.slice(0, 60)})`);
        continue;
      }
      expect(getOperationAST(document, operationName)).toBe(operation);
      variables.forEach((values, index) => {
        if (queryCost.refusalOf({ schema, document, variableValues: values, operationName })) {
          tally.refusedRuns++;
          return;
        }
        const names = index === 0 ? Object.keys(callers) : [random.pick(Object.keys(callers))];
        for (const caller of names as Array<keyof typeof callers>) {
          tasks.push(async () => {
            const headers = callers[caller];
            const [fromCompiled, fromInterpreted] = (await Promise.all([
              compiledRun(document, operationName, values, headers), interpreted(document, operationName, values, headers),
            ])).map(seen);
            tally.runs++;
            if (fromInterpreted!.errors) tally.withErrors++;
            for (const { extensions } of fromInterpreted!.errors ?? []) tally.codes.set(extensions?.code ?? '(none)', (tally.codes.get(extensions?.code ?? '(none)') ?? 0) + 1);
            if (JSON.stringify(fromCompiled) === JSON.stringify(fromInterpreted)) return;
            if (onlyMoreErrorsUnderNull(fromCompiled!, fromInterpreted!)) {
              tally.moreErrorsUnderNull++;
              return;
            }
            const label = `${entry.origin} ${operationName ?? ''} as ${caller}, variables ${JSON.stringify(values)}:\n${entry.text.replace(/\s+/g, ' ').slice(0, 300)}`;
            // The first few in full (a result may be large), the others by where they are.
            differences.push(differences.length < 5 ? { label, compiled: fromCompiled, interpreted: fromInterpreted } : { label });
          });
        }
      });
    }
  }
  await inParallel(tasks);
  return { tally, differences };
}

/** Passes when nothing differs; else shows the first difference in full and where the others are. */
function expectNoDifference(differences: Difference[]) {
  if (differences.length === 0) return;
  const [first] = differences;
  const others = differences.slice(1, 20).map((difference) => difference.label.split('\n')[0]).join('\n');
  // toEqual first for a readable diff; where it passes, only the order of keys differs.
  expect(first!.compiled, `${differences.length} runs differ. First: ${first!.label}\nOthers:\n${others}`).toEqual(first!.interpreted);
  expect(JSON.stringify(first!.compiled), `the same values in another order of keys: ${first!.label}`).toBe(JSON.stringify(first!.interpreted));
}

describe('compiled operations (graphql-jit) against graphql-js', () => {
  const tallies = new Map<CorpusSource, Tally>();
  afterAll(() => {
    for (const [source, tally] of tallies) {
      console.log(`${source}: ${tally.documents} documents, ${tally.runs} runs compared (${tally.withErrors} with errors: `
        + `${[...tally.codes].map(([code, n]) => `${code} ${n}`).join(', ')}); ${tally.refusedRuns} runs refused by the cost limit; `
        + `${tally.moreErrorsUnderNull} runs with more errors under a nulled object (compiled); `
        + `${tally.subscriptions} subscriptions; run interpreted by the app: ${tally.interpretedByTheApp.length}${tally.interpretedByTheApp.map((d) => `\n  ${d}`).join('')}`
        + `\n refused by the app's limits: ${tally.refusedDocuments.length}${tally.refusedDocuments.map((d) => `\n  ${d}`).join('')}`);
    }
  });

  it.each<[CorpusSource, number]>([
    ['rest', 12], ['examples', 3], ['graphiql', 2], ['docs', 3], ['tests', 80], ['builders', 30],
  ])('gives the same answers for the %s documents (at least %i of them)', { timeout: 60_000 }, async (source, atLeast) => {
    const { tally, differences } = await compare(source);
    tallies.set(source, tally);
    expect(tally.documents).toBeGreaterThanOrEqual(atLeast);
    expect(tally.runs).toBeGreaterThanOrEqual(tally.documents);
    expectNoDifference(differences);
  });
});
