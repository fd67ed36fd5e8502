// Imports every domain's GraphQL file for its side effects, then builds the schema.
import { builder } from './builder.ts';
import './scalars.ts';
import '../modules/tenancy/tenant.graphql.ts';
import '../modules/integrations/integration.graphql.ts';
import '../modules/integrations/source-repository.graphql.ts';
import '../modules/deployments/deployment.graphql.ts';
import '../modules/deployments/deployment-list.graphql.ts';
import '../modules/revisions/revision.graphql.ts';
import '../modules/revisions/deployment-revisions.graphql.ts';
import '../modules/deployments/tag.graphql.ts';
import '../modules/deployments/live/deployment-change.graphql.ts';
import '../modules/deployments/writes/deployment-mutations.graphql.ts';
import '../modules/revisions/lifecycle/revision-logs.graphql.ts';
import '../modules/revisions/lifecycle/data-plane-mutations.graphql.ts';
import '../modules/revisions/lifecycle/revision-updated.graphql.ts';
import '../modules/revisions/lifecycle/revision-log-lines.graphql.ts';
import '../modules/storage/source-archive.graphql.ts';
import '../modules/registry/push-token.graphql.ts';
import '../modules/listeners/listener.graphql.ts';
import '../modules/listeners/listener-mutations.graphql.ts';
import '../modules/listeners/listener-data-plane.graphql.ts';

export const schema = builder.toSchema();
