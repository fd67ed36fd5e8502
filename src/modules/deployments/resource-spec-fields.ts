// The resource spec's scalar fields (docs/legacy-api.md#resource-specification), declared once: the request
// model (write-request-schema.ts), the embeddable, the GraphQL types and the legacy record's schema are made
// from this list. Its order is the legacy record's key order, and the request model's but for the database
// fields (see there), which pydantic reports errors in.

export interface ResourceSpecScalar {
  /**
   * The type in the original's request model (shared/spec/original-write-side.md §3.6). `cpu` is an amount of
   * 0.1 to 8 cores, `cpuLimit` one of 0.1 to 16; both are rounded to one decimal when stored.
   */
  readonly request: 'int' | 'float' | 'cpu' | 'cpuLimit';
  /**
   * The type in the legacy record, the embeddable and GraphQL (Int or Float). Not always the request's: the
   * legacy interface calls the orchestrator, executor and database fields only "numeric", so they are kept
   * as numbers rather than truncated.
   */
  readonly stored: 'int' | 'number';
  /** The GraphQL fields' description. */
  readonly description: string;
  /** The OpenAPI document's, where the original's model gives one. */
  readonly requestDescription?: string;
}

export const RESOURCE_SPEC_SCALARS = {
  min_scale: { request: 'int', stored: 'int', description: 'Minimum replicas of the main workload.' },
  max_scale: { request: 'int', stored: 'int', description: 'Maximum replicas of the main workload.' },
  cpu: {
    request: 'cpu', stored: 'number', description: 'CPU request of the main workload, in cores.',
    requestDescription: 'CPU request (cores) per replica; the limit defaults to twice this.',
  },
  cpu_limit: { request: 'cpuLimit', stored: 'number', description: 'CPU limit of the main workload, in cores.' },
  memory_mb: { request: 'int', stored: 'int', description: 'Memory request of the main workload, in MB.' },
  memory_limit_mb: { request: 'int', stored: 'int', description: 'Memory limit of the main workload, in MB.' },

  queue_min_scale: { request: 'int', stored: 'int', description: 'Minimum replicas of the queue workload.' },
  queue_max_scale: { request: 'int', stored: 'int', description: 'Maximum replicas of the queue workload.' },
  queue_cpu: { request: 'cpu', stored: 'number', description: 'CPU request of the queue workload, in cores.' },
  queue_cpu_limit: { request: 'cpuLimit', stored: 'number', description: 'CPU limit of the queue workload, in cores.' },
  queue_memory_mb: { request: 'int', stored: 'int', description: 'Memory request of the queue workload, in MB.' },
  queue_memory_limit_mb: { request: 'int', stored: 'int', description: 'Memory limit of the queue workload, in MB.' },

  orchestrator_cpu: { request: 'float', stored: 'number', description: 'CPU request of the orchestrator, in cores.' },
  orchestrator_cpu_limit: { request: 'float', stored: 'number', description: 'CPU limit of the orchestrator, in cores.' },
  orchestrator_memory_mb: { request: 'int', stored: 'number', description: 'Memory request of the orchestrator, in MB.' },
  orchestrator_memory_limit_mb: { request: 'int', stored: 'number', description: 'Memory limit of the orchestrator, in MB.' },
  orchestrator_min_scale: { request: 'int', stored: 'number', description: 'Minimum replicas of the orchestrator.' },
  orchestrator_max_scale: { request: 'int', stored: 'number', description: 'Maximum replicas of the orchestrator.' },

  executor_cpu: { request: 'float', stored: 'number', description: 'CPU request of the executor, in cores.' },
  executor_cpu_limit: { request: 'float', stored: 'number', description: 'CPU limit of the executor, in cores.' },
  executor_memory_mb: { request: 'int', stored: 'number', description: 'Memory request of the executor, in MB.' },
  executor_memory_limit_mb: { request: 'int', stored: 'number', description: 'Memory limit of the executor, in MB.' },

  redis_cpu: { request: 'cpu', stored: 'number', description: 'CPU request of Redis, in cores.' },
  redis_cpu_limit: { request: 'cpuLimit', stored: 'number', description: 'CPU limit of Redis, in cores.' },
  redis_memory_mb: { request: 'int', stored: 'int', description: 'Memory request of Redis, in MB.' },
  redis_memory_limit_mb: { request: 'int', stored: 'int', description: 'Memory limit of Redis, in MB.' },

  db_cpu: { request: 'float', stored: 'number', description: 'CPU request of the database, in cores.' },
  db_cpu_limit: { request: 'float', stored: 'number', description: 'CPU limit of the database, in cores.' },
  db_memory_mb: { request: 'int', stored: 'number', description: 'Memory request of the database, in MB.' },
  db_memory_limit_mb: { request: 'int', stored: 'number', description: 'Memory limit of the database, in MB.' },
  db_storage_gi: { request: 'int', stored: 'number', description: 'Storage of the database, in GiB.' },
  db_max_connections: { request: 'int', stored: 'number', description: 'Maximum connections of the database.' },
} satisfies Record<string, ResourceSpecScalar>;

/** A scalar field's snake_case name: its key in REST bodies, legacy records and the stored jsonb. */
export type ResourceSpecScalarName = keyof typeof RESOURCE_SPEC_SCALARS;

/** The scalar fields' names, in declaration order. */
export const RESOURCE_SPEC_SCALAR_NAMES = Object.keys(RESOURCE_SPEC_SCALARS) as ResourceSpecScalarName[];

/** An object of `make(field)` under each of `names` (by default every field), in their order. */
export function resourceSpecScalars<Value, Name extends ResourceSpecScalarName = ResourceSpecScalarName>(
  make: (field: ResourceSpecScalar) => Value, names: readonly Name[] = RESOURCE_SPEC_SCALAR_NAMES as Name[],
): Record<Name, Value> {
  return Object.fromEntries(names.map((name) => [name, make(RESOURCE_SPEC_SCALARS[name])])) as Record<Name, Value>;
}
