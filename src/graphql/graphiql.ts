// What GraphiQL opens with: two tabs, a query and a pair of mutations. In embedded demo mode the demo key is
// filled in, so a newcomer's first click on "run" shows data (and the demo key may write); that key only
// reaches people who can reach this local, demo-only server anyway.
import type { YogaServerOptions } from 'graphql-yoga';

export const EXAMPLE_QUERY = `# The newest deployments, with what a dashboard shows of them. Press ▶ to run.
query NewestDeployments {
  tenant { name }
  deployments(limit: 5, filter: { statuses: [READY] }) {
    totalCount
    hasNextPage
    offset
    resources {
      name
      status
      source
      createdAt
      sourceConfig { deploymentType repoUrl resourceSpec { cpu memoryMb minScale maxScale } }
      tagValues { value tagKey { key } }
      latestRevision { status createdAt }
    }
  }
  integrations { uuid name kind codehost }
}
`;

/** The second tab: a write and its follow-up, with the errors a user can fix selected as typed results. */
export const EXAMPLE_MUTATIONS = `# Writes need a key that may write; the demo key may.
# 1. Press ▶, pick CreateDeployment: a new deployment,
#    its first revision (QUEUED) and its etag. Again:
#    the name is taken (a typed error, not a failure).
# 2. Copy its uuid and etag into "change" (Variables),
#    press ▶, pick ChangeImage: a second revision.
mutation CreateDeployment($create: CreateDeploymentInput!) {
  createDeployment(input: $create) {
    __typename
    ... on CreateDeploymentPayload {
      deployment {
        uuid name status etag
        latestRevision {
          uuid status sourceRevisionConfig { imageUri }
        }
      }
    }
    ... on DeploymentNameTakenError { message }
    ... on InvalidInputError { problems { path message } }
  }
}

mutation ChangeImage($change: UpdateDeploymentInput!) {
  updateDeployment(input: $change) {
    __typename
    ... on UpdateDeploymentPayload {
      deployment {
        uuid etag
        latestRevision {
          uuid status sourceRevisionConfig { imageUri }
        }
      }
    }
    ... on PreconditionFailedError { message currentEtag }
    ... on DeploymentNotFoundError { message }
    ... on InvalidInputError { problems { path message } }
  }
}
`;

export const EXAMPLE_MUTATION_VARIABLES = `{
  "create": {
    "name": "hello-graphiql",
    "source": "EXTERNAL_DOCKER",
    "sourceConfig": {
      "deploymentType": "DEV",
      "resourceSpec": { "cpu": 0.5, "memoryMb": 512 }
    },
    "sourceRevisionConfig": { "imageUri": "nginx:1.27" },
    "secrets": [{ "name": "GREETING", "value": "hello" }]
  },
  "change": {
    "id": "<the uuid CreateDeployment answered>",
    "ifMatch": "<its etag, e.g. \\"1\\">",
    "sourceRevisionConfig": { "imageUri": "nginx:1.28" }
  }
}
`;

const NO_KEY_HINT = '# Put your API key in the Headers tab below: {"X-Api-Key": "dmk_..."}\n';

export function graphiqlOptions(demoApiKey: string | undefined): YogaServerOptions<object, object>['graphiql'] {
  const hint = demoApiKey ? '' : NO_KEY_HINT;
  const headers = JSON.stringify({ 'X-Api-Key': demoApiKey ?? '' }, null, 2);
  return {
    title: 'Deployments GraphQL',
    // What a new tab opens with; the two tabs are what GraphiQL opens with the first time (after that, its own).
    defaultQuery: hint + EXAMPLE_QUERY,
    headers,
    defaultTabs: [
      { query: hint + EXAMPLE_QUERY, headers },
      { query: hint + EXAMPLE_MUTATIONS, variables: EXAMPLE_MUTATION_VARIABLES, headers },
    ],
  };
}
