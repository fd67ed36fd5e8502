// The benchmark dataset, as import documents in batches: deterministic (seeded), realistic, every field of
// the resource spec populated. Default scale: 20 tenants, 100,000 deployments (the first tenant alone has
// 50,000), 1,000 integrations of 50 repositories each. `scale` multiplies the counts (0.01 for a smoke run).
import { DEPLOYMENT_SOURCES, DEPLOYMENT_STATUSES, DEPLOYMENT_TYPES, REVISION_STATUSES } from '../src/modules/deployments/deployment-enums.ts';

export const BENCH_TENANTS = 20;
export const BIG_TENANT_SHARE = 0.5;

export interface DatasetSize {
  deployments: number;
  integrations: number;
  repositoriesPerIntegration: number;
}

export const sizeAt = (scale: number): DatasetSize => ({
  deployments: Math.max(BENCH_TENANTS * 10, Math.round(100_000 * scale)),
  integrations: Math.max(BENCH_TENANTS, Math.round(1_000 * scale)),
  repositoriesPerIntegration: 50,
});

/** Deterministic ids: a fixed prefix per kind, then the tenant and a sequence number. */
const id = (kind: number, tenant: number, n: number) =>
  `${kind.toString(16).padStart(2, '0')}${tenant.toString(16).padStart(6, '0')}-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
export const tenantId = (t: number) => id(0xb0, t, 0);
const integrationId = (t: number, n: number) => id(0xb1, t, n);
const tagValueId = (t: number, n: number) => id(0xb2, t, n);
const deploymentId = (t: number, n: number) => id(0xb3, t, n);
const revisionId = (t: number, n: number) => id(0xb4, t, n);

export function seeded(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let x = state;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
  return { next, int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)), pick: <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)]! };
}

const TAGS: [string, string[]][] = [
  ['env', ['production', 'staging', 'development', 'preview']],
  ['team', ['platform', 'payments', 'growth', 'search', 'ml']],
  ['region', ['eu-west', 'us-east', 'ap-south']],
];
const WORDS = ['api', 'web', 'worker', 'billing', 'auth', 'search', 'gateway', 'ingest', 'ledger', 'agent', 'rag', 'chat', 'reports', 'media', 'sync'];

/** Deployments of tenant `t`: the first tenant holds half of them, the others share the rest evenly. */
export function deploymentsOfTenant(t: number, size: DatasetSize): number {
  const big = Math.round(size.deployments * BIG_TENANT_SHARE);
  if (t === 0) return big;
  const rest = size.deployments - big;
  const base = Math.floor(rest / (BENCH_TENANTS - 1));
  return base + (t <= rest % (BENCH_TENANTS - 1) ? 1 : 0);
}

/** The tenants, their tags and their integrations with repositories: the first document to import. */
export function baseDocument(size: DatasetSize) {
  const random = seeded(1);
  const tenants = Array.from({ length: BENCH_TENANTS }, (_, t) => ({ id: tenantId(t), name: `bench-tenant-${t}` }));
  const tags = tenants.flatMap((_, t) => {
    let n = 0;
    return TAGS.map(([key, values]) => ({ tenant_id: tenantId(t), key, values: values.map((value) => ({ id: tagValueId(t, n++), value })) }));
  });
  const perTenant = Math.ceil(size.integrations / BENCH_TENANTS);
  const integrations = Array.from({ length: size.integrations }, (_, i) => {
    const t = i % BENCH_TENANTS;
    const n = Math.floor(i / BENCH_TENANTS);
    const owner = `org-${t}-${n}`;
    return {
      id: integrationId(t, n), tenant_id: tenantId(t), kind: n % 5 === 4 ? 'managed' : 'codehost', codehost: n % 3 === 2 ? 'gitlab' : 'github',
      name: owner,
      repositories: Array.from({ length: size.repositoriesPerIntegration }, (__, r) => ({
        id: 1_000_000 + i * size.repositoriesPerIntegration + r,
        name: `${random.pick(WORDS)}-${r}`, owner: r % 4 === 0 ? `${owner}-oss` : owner,
        url: `https://github.com/${owner}/${r}`, default_branch: r % 6 === 0 ? 'master' : 'main',
      })),
    };
  });
  return { tenants, tags, integrations, deployments: [], perTenant };
}

const container = (name: string, n: number) => ({
  name, image: `registry.example.com/${name}:${n % 9}.${n % 4}`, imagePullPolicy: 'IfNotPresent', workingDir: '/app', restartPolicy: 'Always',
  command: ['/bin/sh', '-c'], args: ['run', `--worker=${n % 8}`],
  env: [{ name: 'LOG_LEVEL', value: 'info', valueFrom: null }, { name: 'POD_IP', value: null, valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } }],
  envFrom: [{ configMapRef: { name: 'shared-env' } }],
  resources: { limits: { cpu: '500m', memory: '256Mi' }, requests: { cpu: '100m', memory: '64Mi' } },
  volumeMounts: [{ name: 'data', mountPath: '/data', subPath: 'sub', mountPropagation: 'None', subPathExpr: '$(POD_NAME)', readOnly: true }],
  securityContext: { runAsUser: 1000, runAsNonRoot: true },
});

/** Deployments `from` to `to` (exclusive) of tenant `t`, in the import document's deployment shape. */
export function deploymentsOf(t: number, from: number, to: number, size: DatasetSize) {
  const start = Date.parse('2024-01-01T00:00:00Z');
  const perTenant = Math.ceil(size.integrations / BENCH_TENANTS);
  return Array.from({ length: to - from }, (_, k) => {
    const n = from + k;
    const random = seeded((t + 1) * 1_000_003 + n);
    const source = DEPLOYMENT_SOURCES[n % DEPLOYMENT_SOURCES.length]!;
    const word = random.pick(WORDS);
    const createdAt = new Date(start + n * 600_000 + random.int(0, 599_999));
    const revisions = Array.from({ length: random.int(1, 3) }, (__, r) => ({
      id: revisionId(t, n * 4 + r), status: random.pick(REVISION_STATUSES), created_at: new Date(createdAt.getTime() + r * 3_600_000).toISOString(),
    }));
    // Tags on 90%: one value of each of one to three keys.
    const tagged = random.next() < 0.9;
    const tagValueIds = tagged ? TAGS.slice(0, random.int(1, 3)).map(([, values], keyIndex) => {
      const offset = TAGS.slice(0, keyIndex).reduce((sum, [, v]) => sum + v.length, 0);
      return tagValueId(t, offset + random.int(0, values.length - 1));
    }) : [];
    const repoIntegration = integrationId(t, n % perTenant);
    return {
      id: deploymentId(t, n), tenant_id: tenantId(t), name: `${word}-${n}-${DEPLOYMENT_TYPES[n % 3]}`,
      status: random.pick(DEPLOYMENT_STATUSES), source, remote_reconciled: random.next() < 0.3,
      image_version: `${random.int(0, 3)}.${random.int(0, 20)}.${random.int(0, 9)}`,
      created_at: createdAt.toISOString(), updated_at: new Date(createdAt.getTime() + random.int(0, 86_400_000)).toISOString(),
      latest_revision_id: revisions.at(-1)!.id, active_revision_id: revisions[0]!.id, revisions,
      tag_value_ids: tagValueIds,
      source_config: {
        integration_id: source === 'github' ? repoIntegration : null, repo_url: `https://github.com/org-${t}/${word}-${n}`,
        build_on_push: n % 2 === 0, custom_url: `https://${word}-${n}.apps.example.com`,
        resource_spec: {
          min_scale: 1, max_scale: random.int(1, 10), cpu: random.pick([0.25, 0.5, 1, 2]), cpu_limit: 2, memory_mb: random.pick([512, 1024, 2048]), memory_limit_mb: 4096,
          queue_min_scale: 1, queue_max_scale: 4, queue_cpu: 0.5, queue_cpu_limit: 1, queue_memory_mb: 512, queue_memory_limit_mb: 1024,
          orchestrator_cpu: 0.5, orchestrator_cpu_limit: 1, orchestrator_memory_mb: 256, orchestrator_memory_limit_mb: 512, orchestrator_min_scale: 1, orchestrator_max_scale: 2,
          executor_cpu: 1, executor_cpu_limit: 2, executor_memory_mb: 1024, executor_memory_limit_mb: 2048,
          redis_cpu: 0.1, redis_cpu_limit: 0.5, redis_memory_mb: 128, redis_memory_limit_mb: 256,
          db_cpu: 1, db_cpu_limit: 2, db_memory_mb: 2048, db_memory_limit_mb: 4096, db_storage_gi: 20, db_max_connections: 100,
          labels: { app: word, tier: 'backend', 'app.kubernetes.io/instance': `${word}-${n}` },
          annotations: { 'prometheus.io/scrape': 'true', 'prometheus.io/port': '9090' },
          service_account_name: `${word}-sa`,
          image_pull_secrets: [{ name: 'registry-credentials' }],
          volumes: [{ name: 'data', configMap: null, secret: null, emptyDir: { medium: 'Memory', sizeLimit: '1Gi' }, persistentVolumeClaim: null, nfs: null, projected: null, downwardAPI: null, csi: null }],
          volume_mounts: [{ name: 'data', mountPath: '/var/data', subPath: null, mountPropagation: null, subPathExpr: null, readOnly: false }],
          init_containers: [container('migrate', n)],
          sidecars: [container('proxy', n), container('log-shipper', n + 1)],
        },
        listener_id: id(0xb5, t, n % 7), listener_config: { k8s_namespace: `ns-${t}-${n % 7}` },
        install_command: 'npm ci', build_command: 'npm run build', deployment_type: DEPLOYMENT_TYPES[n % 3],
      },
      source_revision_config: {
        repo_ref: 'main', graph_config_path: 'config/graph.json', image_uri: `registry.example.com/${word}:${n % 50}`,
        source_tarball_path: `uploads/${t}/${n}.tar.gz`, repo_commit_sha: (n * 2654435761).toString(16).padStart(40, '0').slice(0, 40),
      },
      secrets: Array.from({ length: random.int(3, 10) }, (__, s) => ({ name: `SECRET_${s}`, value: `bench-secret-${t}-${n}-${s}` })),
      secret_references: [{ name: 'STRIPE_KEY', secret_name: 'payments', secret_key: 'stripe-key' }],
    };
  });
}

/** Ids the scenarios use, all in the big tenant: a code-host integration, env=production|staging and team=platform. */
export const benchIds = () => ({
  integrationId: integrationId(0, 0),
  tagValues: [tagValueId(0, 0), tagValueId(0, 1), tagValueId(0, 4)] as [string, string, string],
});
