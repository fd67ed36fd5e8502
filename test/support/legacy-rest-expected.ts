// The legacy REST bodies for test/fixtures/full-import.json, written out by hand from docs/legacy-api.md and
// docs/decisions.md (nothing here is computed by src/): keys in the legacy order, every declared key
// present (null when absent), lower-case `source` / `deployment_type`, timestamps as `…T…:…:….sssZ`.
// Free-form maps (labels, volume sources, securityContext, …) keep their content; their keys come back in
// PostgreSQL jsonb's order (shorter keys first, then bytewise), which JSON does not give a meaning. Also the extra integrations rest-legacy-json.test.ts imports on top of the fixture.
import { ACME, ACME_DEPLOYMENT, ACME_INTEGRATION, GLOBEX, GLOBEX_DEPLOYMENT } from './fixtures.ts';
import type { Doc } from './graphql-expect.ts';

export const MASK = '********';

const container = (name: string) => ({
  name,
  image: `registry.example.com/${name}:1.2`,
  imagePullPolicy: 'IfNotPresent',
  workingDir: '/app',
  restartPolicy: 'Always',
  command: ['/bin/sh', '-c'],
  args: ['run', '--verbose'],
  env: [
    { name: 'MODE', value: 'fast', valueFrom: null },
    { name: 'POD_IP', value: null, valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
  ],
  envFrom: [{ configMapRef: { name: 'shared-env' } }],
  resources: { limits: { cpu: '500m', memory: '256Mi' }, requests: { cpu: '100m', memory: '64Mi' } },
  volumeMounts: [{ name: 'data', mountPath: '/data', subPath: 'sub', mountPropagation: 'None', subPathExpr: '$(POD_NAME)', readOnly: true }],
  securityContext: { runAsUser: 1000, runAsNonRoot: true },
});

/** ACME's `checkout-prod`, every field set; secret values as the key may see them. */
export const acmeCheckout = (secretValues: [string, string]) => ({
  name: 'checkout-prod',
  source_config: {
    integration_id: ACME_INTEGRATION,
    repo_url: 'https://github.com/acme/checkout',
    build_on_push: true,
    custom_url: 'https://checkout.acme.example',
    resource_spec: {
      min_scale: 1, max_scale: 5, cpu: 0.5, cpu_limit: 1.5, memory_mb: 512, memory_limit_mb: 1024,
      queue_min_scale: 1, queue_max_scale: 3, queue_cpu: 0.25, queue_cpu_limit: 0.75, queue_memory_mb: 256, queue_memory_limit_mb: 512,
      orchestrator_cpu: 0.5, orchestrator_cpu_limit: 1, orchestrator_memory_mb: 256, orchestrator_memory_limit_mb: 512,
      orchestrator_min_scale: 1, orchestrator_max_scale: 2,
      executor_cpu: 1.25, executor_cpu_limit: 2, executor_memory_mb: 1024, executor_memory_limit_mb: 2048,
      redis_cpu: 0.1, redis_cpu_limit: 0.2, redis_memory_mb: 128, redis_memory_limit_mb: 256,
      db_cpu: 1, db_cpu_limit: 2.5, db_memory_mb: 2048, db_memory_limit_mb: 4096, db_storage_gi: 20, db_max_connections: 150,
      labels: { app: 'checkout', tier: 'backend' },
      annotations: { 'prometheus.io/scrape': 'true' },
      service_account_name: 'checkout-sa',
      image_pull_secrets: [{ name: 'registry-credentials' }],
      volumes: [{
        name: 'data',
        configMap: { name: 'cfg' },
        secret: { secretName: 's' },
        emptyDir: { medium: 'Memory' },
        persistentVolumeClaim: { claimName: 'pvc' },
        nfs: { path: '/exports', server: 'nfs.local' },
        projected: { sources: [] },
        downwardAPI: { items: [] },
        csi: { driver: 'csi.example.com' },
      }],
      volume_mounts: [{ name: 'data', mountPath: '/var/data', subPath: 'x', mountPropagation: 'HostToContainer', subPathExpr: '$(NODE)', readOnly: false }],
      init_containers: [container('migrate')],
      sidecars: [container('proxy')],
    },
    listener_id: '44444444-4444-4444-8444-444444444444',
    listener_config: { k8s_namespace: 'acme-prod' },
    install_command: 'npm ci',
    build_command: 'npm run build',
    deployment_type: 'prod',
  },
  source_revision_config: {
    repo_ref: 'main',
    graph_config_path: 'config/graph.json',
    image_uri: 'registry.example.com/acme/checkout:1.4.2',
    source_tarball_path: 'uploads/checkout.tar.gz',
    repo_commit_sha: '0123456789abcdef0123456789abcdef01234567',
  },
  secrets: [{ name: 'STRIPE_SECRET', value: secretValues[0] }, { name: 'DB_PASSWORD', value: secretValues[1] }],
  id: ACME_DEPLOYMENT,
  tenant_id: ACME,
  created_at: '2026-03-01T10:00:00.000Z',
  updated_at: '2026-03-02T11:30:15.250Z',
  latest_revision_id: '66666666-6666-4666-8666-666666666662',
  active_revision_id: '66666666-6666-4666-8666-666666666661',
  secret_references: [{ name: 'SMTP_PASSWORD', secret_name: 'mail', secret_key: 'password' }],
  image_version: '1.4.2',
  status: 'READY',
  source: 'github',
});

/** GLOBEX's `other-tenant-app`: almost nothing set, so almost everything is null. */
export const globexOther = (secretValue: string) => ({
  name: 'other-tenant-app',
  source_config: {
    integration_id: null, repo_url: null, build_on_push: null, custom_url: null, resource_spec: null,
    listener_id: null, listener_config: null, install_command: null, build_command: null, deployment_type: 'dev',
  },
  source_revision_config: null,
  secrets: [{ name: 'OTHER_SECRET', value: secretValue }],
  id: GLOBEX_DEPLOYMENT,
  tenant_id: GLOBEX,
  created_at: '2026-02-01T00:00:00.000Z',
  updated_at: '2026-02-01T00:00:00.000Z',
  latest_revision_id: null,
  active_revision_id: null,
  secret_references: [],
  image_version: null,
  status: 'UNUSED',
  source: 'external_docker',
});

/** ACME's code-host integration in the fixture: `big-id` before `checkout` (same owner). */
export const ACME_CODEHOST_REPOS = [
  { host_integration_id: ACME_INTEGRATION, id: 3000000001, name: 'big-id', owner: 'acme', url: 'https://github.com/acme/big-id', default_branch: 'trunk' },
  { host_integration_id: ACME_INTEGRATION, id: 123456, name: 'checkout', owner: 'acme', url: 'https://github.com/acme/checkout', default_branch: 'main' },
];

export const ACME_MANAGED = 'cccccccc-0000-4000-8000-00000000000a';
export const ACME_GITLAB = 'cccccccc-0000-4000-8000-00000000000b';

const repo = (id: number, owner: string, name: string) =>
  ({ id, name, owner, url: `https://git.example/${owner}/${name}`, default_branch: 'main' });

export const REST_EXTRA_DOCUMENT: Doc = {
  integrations: [
    {
      id: ACME_MANAGED, tenant_id: ACME, kind: 'managed', codehost: 'github', name: 'acme-managed',
      repositories: [repo(9, 'acme', 'Zeta'), repo(2 ** 40, 'Acme-Labs', 'docs'), repo(8, 'Acme', 'alpha'), repo(7, 'acme', 'ALPHA')],
    },
    { id: ACME_GITLAB, tenant_id: ACME, kind: 'codehost', codehost: 'gitlab', name: 'acme-gitlab', repositories: [repo(1, 'acme', 'infra')] },
  ],
};

/** Owner, then name, case-insensitively, then id: ALPHA/7 and alpha/8 tie on name. */
export const ACME_MANAGED_REPOS = [
  { host_integration_id: ACME_MANAGED, id: 7, name: 'ALPHA', owner: 'acme', url: 'https://git.example/acme/ALPHA', default_branch: 'main' },
  { host_integration_id: ACME_MANAGED, id: 8, name: 'alpha', owner: 'Acme', url: 'https://git.example/Acme/alpha', default_branch: 'main' },
  { host_integration_id: ACME_MANAGED, id: 9, name: 'Zeta', owner: 'acme', url: 'https://git.example/acme/Zeta', default_branch: 'main' },
  { host_integration_id: ACME_MANAGED, id: 1099511627776, name: 'docs', owner: 'Acme-Labs', url: 'https://git.example/Acme-Labs/docs', default_branch: 'main' },
];

export const ACME_GITLAB_REPOS = [
  { host_integration_id: ACME_GITLAB, id: 1, name: 'infra', owner: 'acme', url: 'https://git.example/acme/infra', default_branch: 'main' },
];
