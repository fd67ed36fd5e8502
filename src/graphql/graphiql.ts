// What GraphiQL opens with. In embedded demo mode the demo key is filled in, so a newcomer's first click on
// "run" shows data; that key only reaches people who can reach this local, demo-only server anyway.
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

const NO_KEY_HINT = '# Put your API key in the Headers tab below: {"X-Api-Key": "dmk_..."}\n';

export function graphiqlOptions(demoApiKey: string | undefined): YogaServerOptions<object, object>['graphiql'] {
  return {
    title: 'Deployments GraphQL',
    defaultQuery: demoApiKey ? EXAMPLE_QUERY : NO_KEY_HINT + EXAMPLE_QUERY,
    headers: JSON.stringify({ 'X-Api-Key': demoApiKey ?? '' }, null, 2),
  };
}
