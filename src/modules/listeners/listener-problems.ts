// What the listener writes refuse, as the domain says it: the GraphQL mutations make them typed results, the
// REST routes the original's status codes and `detail` bodies (docs/rest.md#listeners).
import { WriteRefusal } from '../deployments/writes/write-problems.ts';

/** Unknown, or another tenant's: the two look the same (docs/decisions.md#authentication-and-tenants). */
export class ListenerNotFound extends WriteRefusal {
  readonly listenerId: string;
  constructor(id: string) {
    super(`Listener ID ${id} not found.`);
    this.listenerId = id;
  }
}

/** "A listener must have a unique combination of workspace_id and compute_id" (the original's 409, its words). */
export class ListenerComputeIdTaken extends WriteRefusal {
  readonly computeId: string;
  constructor(tenantId: string, computeId: string) {
    super(`Listener for tenant ID '${tenantId}' and compute ID '${computeId}' already exists.`);
    this.computeId = computeId;
  }
}

/** Deployments still name the listener: deleting it would leave them without a cluster (docs/decisions.md#listeners). */
export class ListenerInUse extends WriteRefusal {
  readonly listenerId: string;
  readonly deploymentCount: number;
  constructor(id: string, deploymentCount: number) {
    super(`Listener ID ${id} is named by ${deploymentCount} deployment${deploymentCount === 1 ? '' : 's'}; delete ${deploymentCount === 1 ? 'it' : 'them'} first.`);
    this.listenerId = id;
    this.deploymentCount = deploymentCount;
  }
}

/** A PATCH would drop namespaces that deployments of the listener run in (docs/decisions.md#listeners). */
export class ListenerNamespacesInUse extends WriteRefusal {
  readonly listenerId: string;
  readonly namespaces: string[];
  constructor(id: string, namespaces: string[]) {
    super(`Listener ID ${id}: deployments run in ${namespaces.map((namespace) => `'${namespace}'`).join(', ')}, so k8s_namespaces must keep ${namespaces.length === 1 ? 'it' : 'them'}.`);
    this.listenerId = id;
    this.namespaces = namespaces;
  }
}
