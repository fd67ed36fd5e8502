// Every REST route, in matching order (a literal path before the template that would also match it).
import { getDeploymentRoute, listDeploymentsRoute } from './deployments.route.ts';
import { installationRoutes } from './installations.route.ts';
import { repositoryRoutes } from './repositories.route.ts';
import type { RestRoute } from './rest-route.ts';
import { deploymentWriteRoutes } from './deployment-writes.route.ts';
import { getRevisionRoute, listRevisionsRoute } from './revisions.route.ts';
import { buildLogsRoute } from './build-logs.route.ts';
import { deployLogsRoutes } from './deploy-logs.route.ts';
import { dataPlaneRoutes } from './data-plane.route.ts';
import { listenerRoutes } from './listeners.route.ts';
import { listenerHeartbeatRoute } from './listener-heartbeat.route.ts';

export const REST_ROUTES: RestRoute[] = [
  ...repositoryRoutes, ...installationRoutes, listDeploymentsRoute, getDeploymentRoute, listRevisionsRoute, getRevisionRoute,
  ...deploymentWriteRoutes, buildLogsRoute, ...deployLogsRoutes, ...dataPlaneRoutes, listenerHeartbeatRoute, ...listenerRoutes,
];
