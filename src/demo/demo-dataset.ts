// The demo tenant's data as an import document. Deterministic (seeded), so every fresh start shows the same
// data and ids, and it goes through the same validation and importer as any other document.
import { DEPLOYMENT_SOURCES, DEPLOYMENT_STATUSES, DEPLOYMENT_TYPES, REVISION_STATUSES } from '../modules/deployments/deployment-enums.ts';

export const DEMO_TENANT_ID = '5e3d0000-0000-4000-8000-000000000001';

function seededRandom(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const hex = (n: number) => Array.from({ length: n }, () => Math.floor(next() * 16).toString(16)).join('');
  return {
    next,
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!,
    uuid: () => `${hex(8)}-${hex(4)}-4${hex(3)}-${'89ab'[Math.floor(next() * 4)]}${hex(3)}-${hex(12)}`,
  };
}

const REPO_NAMES = [
  'api', 'web', 'worker', 'billing', 'auth', 'search', 'notifications', 'gateway', 'scheduler', 'reports',
  'ingest', 'media', 'ledger', 'chat-agent', 'support-bot', 'docs', 'cli', 'sdk-python', 'sdk-js', 'infra',
  'analytics', 'pricing', 'catalog', 'checkout', 'inventory', 'mobile-backend', 'feature-flags', 'audit', 'exports', 'rag-pipeline',
];

const TAGS = { env: ['production', 'staging', 'development'], team: ['platform', 'payments', 'growth'], region: ['eu-west', 'us-east'] };

export function buildDemoDocument() {
  const random = seededRandom(20261121);
  const tenant_id = DEMO_TENANT_ID;
  const integrations = [
    { id: random.uuid(), tenant_id, kind: 'codehost', codehost: 'github', name: 'acme-corp', installation_id: 41_000_001, repositories: [] as object[] },
    { id: random.uuid(), tenant_id, kind: 'codehost', codehost: 'gitlab', name: 'acme-labs', installation_id: 41_000_002, repositories: [] as object[] },
    { id: random.uuid(), tenant_id, kind: 'managed', codehost: 'github', name: 'acme-managed', installation_id: 41_000_003, repositories: [] as object[] },
  ];
  REPO_NAMES.forEach((name, index) => {
    const integration = integrations[index % 3]!;
    const owner = index % 2 === 0 ? integration.name : `${integration.name}-oss`;
    const host = integration.codehost === 'gitlab' ? 'gitlab.com' : 'github.com';
    integration.repositories.push({
      id: 100_000 + index * 7919, name, owner, url: `https://${host}/${owner}/${name}`,
      default_branch: index % 5 === 0 ? 'master' : 'main',
    });
  });

  const tags = Object.entries(TAGS).map(([key, values]) => ({
    tenant_id, key, values: values.map((value) => ({ id: random.uuid(), value })),
  }));
  const tagValuesByKey = tags.map((t) => t.values.map((v) => v.id));

  // A `github` deployment is built from a repository of a GitHub integration (gitlab.com has no `github` source).
  const repos = integrations.filter((i) => i.kind === 'codehost' && i.codehost === 'github').flatMap((i) =>
    (i.repositories as { url: string; default_branch: string }[]).map((r) => ({ integration: i.id, ...r })));
  const start = Date.parse('2026-01-05T09:00:00Z');
  const deployments = Array.from({ length: 60 }, (_, index) => {
    const source = DEPLOYMENT_SOURCES[index % DEPLOYMENT_SOURCES.length]!;
    const repo = repos[index % repos.length]!;
    const createdAt = new Date(start + index * 3.7 * 86_400_000 + Math.floor(random.next() * 3_600_000));
    const updatedAt = new Date(createdAt.getTime() + Math.floor(random.next() * 20 * 86_400_000));
    const fromRepo = source === 'github';
    const revisions = Array.from({ length: 1 + (index % 3) }, (__, r) => ({
      id: random.uuid(),
      status: r === 0 && index % 3 !== 0 ? 'DEPLOYED' : random.pick(REVISION_STATUSES),
      created_at: new Date(createdAt.getTime() + r * 86_400_000).toISOString(),
      updated_at: new Date(createdAt.getTime() + r * 86_400_000 + 600_000).toISOString(),
      source,
      // Later revisions of a repository-built deployment came from a push, reconciled from the code host.
      remote_reconciled: fromRepo && r > 0,
      source_revision_config: null as Record<string, string | null> | null,
    }));
    const deployment = {
      id: random.uuid(),
      tenant_id,
      name: `${REPO_NAMES[index % REPO_NAMES.length]}-${DEPLOYMENT_TYPES[index % 3]}${index >= 30 ? '-2' : ''}`,
      status: DEPLOYMENT_STATUSES[index % DEPLOYMENT_STATUSES.length],
      source,
      remote_reconciled: index % 4 === 0,
      image_version: source === 'external_docker' ? `1.${index % 7}.${index % 3}` : `0.${index % 4}.${index}`,
      created_at: createdAt.toISOString(),
      updated_at: updatedAt.toISOString(),
      latest_revision_id: revisions.at(-1)!.id,
      active_revision_id: revisions[0]!.id,
      revisions,
      // 1 to 3 tags, rotating through every value of every key.
      tag_value_ids: tagValuesByKey.map((values, k) => values[(Math.floor(index / 3) + k) % values.length]!).slice(0, 1 + (index % 3)),
      source_config: {
        integration_id: fromRepo ? repo.integration : null,
        repo_url: fromRepo ? repo.url : null,
        build_on_push: fromRepo ? index % 2 === 0 : null,
        custom_url: index % 6 === 0 ? `https://app-${index}.example.com` : null,
        resource_spec: {
          min_scale: 1, max_scale: 1 + (index % 5), cpu: 0.5 * (1 + (index % 4)), cpu_limit: 2,
          memory_mb: 512 * (1 + (index % 3)), memory_limit_mb: 4096,
          queue_min_scale: 1, queue_max_scale: 3, queue_cpu: 0.25, queue_cpu_limit: 1, queue_memory_mb: 256, queue_memory_limit_mb: 1024,
          redis_cpu: 0.1, redis_cpu_limit: 0.5, redis_memory_mb: 128, redis_memory_limit_mb: 512,
          db_cpu: 1, db_cpu_limit: 2, db_memory_mb: 1024, db_memory_limit_mb: 2048, db_storage_gi: 10, db_max_connections: 100,
          labels: { app: REPO_NAMES[index % REPO_NAMES.length] }, annotations: {},
          service_account_name: index % 10 === 0 ? 'deployer' : null,
          image_pull_secrets: source === 'external_docker' ? [{ name: 'registry-credentials' }] : [],
          volumes: index % 8 === 0 ? [{ name: 'cache', emptyDir: { sizeLimit: '1Gi' } }] : [],
          volume_mounts: index % 8 === 0 ? [{ name: 'cache', mountPath: '/var/cache/app', readOnly: false }] : [],
          init_containers: [],
          sidecars: index % 12 === 0
            ? [{ name: 'log-shipper', image: 'fluent/fluent-bit:3.1', args: ['--config', '/etc/fluent-bit.conf'], env: [{ name: 'LOG_LEVEL', value: 'info' }] }]
            : [],
        },
        listener_id: null,
        listener_config: null,
        install_command: source === 'internal_source' ? 'pip install -e .' : null,
        build_command: null,
        deployment_type: DEPLOYMENT_TYPES[index % 3],
      },
      source_revision_config: {
        repo_ref: fromRepo ? repo.default_branch : null,
        graph_config_path: fromRepo ? 'config/graph.json' : null,
        image_uri: source.endsWith('docker') ? `registry.example.com/acme/${REPO_NAMES[index % REPO_NAMES.length]}:1.${index % 7}` : null,
        source_tarball_path: source === 'internal_source' ? `uploads/${index}/source.tar.gz` : null,
        repo_commit_sha: fromRepo ? random.uuid().replaceAll('-', '').slice(0, 40).padEnd(40, '0') : null,
      },
      secrets: index % 5 === 0 ? [{ name: 'OPENAI_API_KEY', value: `sk-demo-${index}` }, { name: 'DATABASE_PASSWORD', value: `demo-password-${index}` }] : [],
      secret_references: index % 7 === 0 ? [{ name: 'STRIPE_KEY', secret_name: 'payments', secret_key: 'stripe-key' }] : [],
    };
    // Each revision deploys the deployment's source; the older ones an older commit (derived, not drawn: drawing
    // more random numbers would change every id after them).
    revisions.forEach((revision, r) => {
      const sha = deployment.source_revision_config.repo_commit_sha;
      const older = revisions.length - 1 - r;
      revision.source_revision_config = { ...deployment.source_revision_config, repo_commit_sha: sha && older > 0 ? `${sha.slice(0, 39)}${older}` : sha };
    });
    return deployment;
  });
  return { tenants: [{ id: tenant_id, name: 'Demo Workspace' }], tags, integrations, deployments };
}
