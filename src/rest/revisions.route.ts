// GET /v2/deployments/{deployment_id}/revisions (a deployment's `revisionPage`) and
// GET /v2/deployments/{deployment_id}/revisions/{revision_id} (its `revision`): the original's Revision records.
import { graphqlSelectionFor } from '../modules/common/legacy-json.ts';
import { REVISION_STATUSES } from '../modules/deployments/deployment-enums.ts';
import { revisionRecordSchema } from '../modules/revisions/revision-record.schema.ts';
import { DEPLOYMENT_NOT_FOUND, deploymentIdParameter, deploymentNotFound } from './deployments.route.ts';
import { nextOffset, pageParameters, pageVariables } from './offset-pages.ts';
import { legacyResponseSchema } from './response-schemas.ts';
import type { RestRoute } from './rest-route.ts';

const recordSelection = graphqlSelectionFor(revisionRecordSchema, { id: 'uuid' });

/** A Revision record (docs/legacy-api.md#revision-record), as the route's document selects it. */
interface LegacyRevisionJson {
  source: string;
  [key: string]: unknown;
}

// GraphQL enum names are upper case; the legacy `source` is the lower-case value it stands for.
const toLegacyJson = (revision: LegacyRevisionJson) => ({ ...revision, source: revision.source.toLowerCase() });

export const listRevisionsRoute: RestRoute = {
  path: '/v2/deployments/{deployment_id}/revisions',
  operationId: 'list_revisions_v2_deployments__deployment_id__revisions_get',
  summary: 'List Revisions',
  description: 'Revisions of the deployment, newest first (created_at, then id, descending), filtered and paged by offset.',
  tag: 'deployments',
  parameters: [
    deploymentIdParameter,
    ...pageParameters,
    { name: 'status', in: 'query', kind: 'enum-list', values: REVISION_STATUSES, description: 'One revision status or a comma-separated list (any of them).' },
    { name: 'remote_reconciled', in: 'query', kind: 'bool', description: 'Revisions that came (true) or did not come (false) from reconciling with the remote.' },
  ],
  document: `query LegacyListRevisions($id: ID!, $filter: RevisionFilter, $limit: Int!, $offset: Int!) {
  deployment(id: $id) {
    revisionPage(filter: $filter, limit: $limit, offset: $offset) {
      resources ${recordSelection}
      offset
    }
  }
}`,
  variables: ({ values }) => ({
    id: values.deployment_id,
    ...pageVariables(values),
    filter: { statuses: values.status, remoteReconciled: values.remote_reconciled },
  }),
  respond: (data, { values }) => {
    if (!data.deployment) return deploymentNotFound(values.deployment_id);
    const page = data.deployment.revisionPage as { resources: LegacyRevisionJson[]; offset: number };
    return { status: 200, body: { resources: page.resources.map(toLegacyJson), offset: nextOffset(values, page.offset) } };
  },
  responseSchema: legacyResponseSchema('RevisionList'),
  notFound: DEPLOYMENT_NOT_FOUND,
};

export const getRevisionRoute: RestRoute = {
  path: '/v2/deployments/{deployment_id}/revisions/{revision_id}',
  operationId: 'get_revision_v2_deployments__deployment_id__revisions__revision_id__get',
  summary: 'Get Revision',
  description: 'One revision of the deployment.',
  tag: 'deployments',
  parameters: [deploymentIdParameter, { name: 'revision_id', in: 'path', kind: 'uuid', description: 'ID of the revision.' }],
  document: `query LegacyGetRevision($id: ID!, $revisionId: ID!) {
  deployment(id: $id) {
    revision(id: $revisionId) ${recordSelection}
  }
}`,
  variables: ({ values }) => ({ id: values.deployment_id, revisionId: values.revision_id }),
  respond: (data, { values }) => {
    if (!data.deployment) return deploymentNotFound(values.deployment_id);
    if (!data.deployment.revision) return { status: 404, body: { detail: `Revision ID ${String(values.revision_id)} not found.` } };
    return { status: 200, body: toLegacyJson(data.deployment.revision as LegacyRevisionJson) };
  },
  responseSchema: legacyResponseSchema('Revision'),
  notFound: `${DEPLOYMENT_NOT_FOUND} \`Revision ID <revision_id> not found.\`: the deployment has no revision of that id.`,
};
