// Every REST route, in matching order (a literal path before the template that would also match it).
import { listDeploymentsRoute } from './deployments.route.ts';
import { repositoryRoutes } from './repositories.route.ts';
import type { ExecutionArgs } from 'graphql';
import type { RestRoute } from './rest-route.ts';

export const REST_ROUTES: RestRoute[] = [...repositoryRoutes, listDeploymentsRoute];

const REST_DOCUMENTS = new Set(REST_ROUTES.map((route) => route.document));

/** Whether an execution is one of the REST routes' own operations (by its exact source text). */
export const isRestOperation = (args: ExecutionArgs): boolean => REST_DOCUMENTS.has(args.document.loc?.source.body ?? '');
