// The write scenarios: what the maker's CLI sends when it deploys (shared/spec/original-write-side.md §6.3-6.4),
// each request a new one. A create carries a fresh name every time (a second create of one name is a 409); a
// PATCH takes the next deployment of a pool, so that concurrent PATCHes seldom wait for one row's lock. They
// write in a tenant of their own (bench/write-tenant.ts), never in the big tenant the reads measure.
import type { Scenario } from './scenarios.ts';

/** Deployments the PATCH scenarios go round: far more than connections, so two PATCHes of one row rarely meet. */
export const PATCH_POOL_SIZE = 64;

export const CREATE_CEILING = 'ceiling: pg, name check + insert a deployment and its 5 secrets (sealed), one transaction';
export const PATCH_CEILING = 'ceiling: pg, lock + replace 5 secrets (sealed) + insert a revision + update the deployment, one transaction';

/**
 * What a project's env file gives the CLI (reserved names left out): a few API keys and settings, at the lengths
 * such values have. The CLI sends the same list on create and on every PATCH.
 */
const CLI_SECRETS = [
  { name: 'OPENAI_API_KEY', value: `sk-proj-${'aB3dE5fG7h'.repeat(16)}` },
  { name: 'ANTHROPIC_API_KEY', value: `sk-ant-api03-${'Zy9Xw8Vu7T'.repeat(9)}-AA` },
  { name: 'TAVILY_API_KEY', value: `tvly-${'0123456789abcdef'.repeat(2)}` },
  { name: 'SLACK_BOT_TOKEN', value: 'xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx' },
  { name: 'LOG_LEVEL', value: 'info' },
];

/** The CLI's create body, its keys in the CLI's order: a local build, nothing to build yet (so no revision). */
export const createBody = (name: string) => ({
  name, source: 'internal_docker', source_config: { deployment_type: 'dev' }, source_revision_config: {}, secrets: CLI_SECRETS,
});

/** The CLI's PATCH after a local build and push: the pushed image by digest, and the secrets again. */
export const patchBody = (n: number) => ({
  revision_source: 'internal_docker',
  source_revision_config: { image_uri: `registry.example.com/bench-writes/agent@sha256:${n.toString(16).padStart(64, '0')}` },
  secrets: CLI_SECRETS,
});

// The same writes through GraphQL, with what a frontend reads back: the id, the name, the ETag for its next write.
const CREATE_MUTATION = `mutation Create($input: CreateDeploymentInput!) { createDeployment(input: $input) {
  __typename ... on CreateDeploymentPayload { deployment { uuid name etag latestRevisionId } } ... on MutationError { message } } }`;
const UPDATE_MUTATION = `mutation Update($input: UpdateDeploymentInput!) { updateDeployment(input: $input) {
  __typename ... on UpdateDeploymentPayload { deployment { uuid name etag latestRevisionId } } ... on MutationError { message } } }`;
const createInput = (name: string) => ({
  name, source: 'INTERNAL_DOCKER', sourceConfig: { deploymentType: 'DEV' }, sourceRevisionConfig: {}, secrets: CLI_SECRETS,
});
const updateInput = (id: string, n: number) => ({
  id, revisionSource: 'INTERNAL_DOCKER', sourceRevisionConfig: { imageUri: patchBody(n).source_revision_config.image_uri }, secrets: CLI_SECRETS,
});

/**
 * The write scenarios and their ceilings. `pool`: the PATCH scenarios' deployments, filled once the write tenant
 * is prepared (the scenarios are listed before). Names are unique across runs: the run's start is in each.
 */
export function writeScenarios(pool: readonly string[]): Scenario[] {
  const run = Date.now().toString(36);
  let created = 0;
  let patched = 0;
  const nextName = () => `bench-w-${run}-${(created++).toString(36)}`;
  const nextDeployment = () => {
    if (pool.length === 0) throw new Error('the PATCH pool is empty: prepareWriteTenant has not run');
    return pool[patched++ % pool.length]!;
  };
  const create = () => ({ path: '/v2/deployments', body: JSON.stringify(createBody(nextName())) });
  const patch = () => ({ path: `/v2/deployments/${nextDeployment()}`, body: JSON.stringify(patchBody(patched)) });
  const graphqlCreate = () => ({ path: '/graphql', body: JSON.stringify({ query: CREATE_MUTATION, variables: { input: createInput(nextName()) } }) });
  const graphqlUpdate = () => {
    const id = nextDeployment();
    return { path: '/graphql', body: JSON.stringify({ query: UPDATE_MUTATION, variables: { input: updateInput(id, patched) } }) };
  };
  const write = (name: string, target: Scenario['target'], method: 'POST' | 'PATCH', request: () => { path: string; body: string }, compareWith: string, statements?: number): Scenario =>
    ({ name, target, method, path: '/v2/deployments', ceiling: compareWith, writes: true, request, ...(statements !== undefined && { statements }) });
  return [
    // Statements as the service's are counted (the ORM's onQuery hook), without BEGIN and COMMIT: the name's
    // lock, the name check, the deployment, its secrets (one statement).
    write(CREATE_CEILING, 'ceiling', 'POST', create, CREATE_CEILING, 4),
    // The row's lock, delete the secrets, insert them (one statement), the revision, the update.
    write(PATCH_CEILING, 'ceiling', 'PATCH', patch, PATCH_CEILING, 5),
    write('REST create (POST /v2/deployments: the CLI\'s body, internal_docker, 5 secrets, a new name each)', 'service', 'POST', create, CREATE_CEILING),
    write(`REST PATCH (the CLI's local-build body: image_uri + 5 secrets, a new revision; ${PATCH_POOL_SIZE} deployments in turn)`, 'service', 'PATCH', patch, PATCH_CEILING),
    write('GraphQL createDeployment (the same input; uuid name etag latestRevisionId)', 'service', 'POST', graphqlCreate, CREATE_CEILING),
    write('GraphQL updateDeployment (the same input; uuid name etag latestRevisionId)', 'service', 'POST', graphqlUpdate, PATCH_CEILING),
  ];
}
