// Every REST route, in matching order (a literal path before the template that would also match it).
import { listDeploymentsRoute } from './deployments.route.ts';
import { repositoryRoutes } from './repositories.route.ts';
import type { RestRoute } from './rest-route.ts';

export const REST_ROUTES: RestRoute[] = [...repositoryRoutes, listDeploymentsRoute];
