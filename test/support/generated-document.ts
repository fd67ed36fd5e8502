// A large import document with every shape a record may take, generated from a seed: the benchmark's
// deployments (bench/dataset.ts), each bent in its own way (keys left out or null, partial resource specs,
// free-form maps in an order jsonb changes, text with tabs, newlines, backslashes, quotes and non-ASCII
// characters, timestamps with offsets, upper-case UUIDs, older-format revisions, repository ids above 2^31),
// and a "changed" version of it that edits, adds and removes what an update import touches.
import { baseDocument, deploymentsOf, seeded, sizeAt, tenantId } from '../../bench/dataset.ts';

type Json = any;
type Random = ReturnType<typeof seeded>;
const chance = (random: Random, p: number) => random.next() < p;


/** Text a COPY row and a JSON string must both carry intact. */
const AWKWARD = ['tab\there', 'line\nbreak', 'back\\slash', 'quote " and \'', 'crlf\r\n', 'café 日本 🚀', '\\N', 'trailing\\'];

function bend(deployment: Json, n: number, random: Random): Json {
  const d = structuredClone(deployment);
  const spec = d.source_config.resource_spec;
  if (chance(random, 0.1)) d.source_config.resource_spec = null;
  else if (chance(random, 0.05)) delete d.source_config.resource_spec;
  else if (chance(random, 0.3)) for (const key of Object.keys(spec)) if (chance(random, 0.5)) delete spec[key];
  if (d.source_config.resource_spec) {
    d.source_config.resource_spec.labels = { zz: random.pick(AWKWARD), a: n, mmm: { y: [1, 2.5, null], b: { c: true } } };
    if (chance(random, 0.3)) d.source_config.resource_spec.cpu = 0.1 + 0.2;
    if (chance(random, 0.2)) d.source_config.resource_spec.sidecars = [{ name: 'tiny' }, {}];
    if (chance(random, 0.1)) d.source_config.resource_spec.init_containers = [];
  }
  if (chance(random, 0.2)) d.source_config.listener_config = random.pick([{}, null]);
  if (chance(random, 0.2)) d.source_config.build_on_push = false;
  if (chance(random, 0.1)) d.source_config.integration_id = null;
  if (chance(random, 0.3)) d.name = `${d.name} ${random.pick(AWKWARD)}`;
  if (chance(random, 0.2)) delete d.image_version;
  if (chance(random, 0.1)) d.latest_revision_id = null;
  if (chance(random, 0.2)) delete d.remote_reconciled;
  if (chance(random, 0.2)) d.source_revision_config = random.pick([null, {}, { image_uri: 'x:1' }]);
  if (chance(random, 0.1)) d.id = d.id.toUpperCase();
  if (chance(random, 0.2)) d.updated_at = d.updated_at.replace('Z', '+02:00');
  if (chance(random, 0.2)) d.secrets = random.pick([undefined, null, [], [{ name: 'EMPTY', value: '' }]]);
  else d.secrets = d.secrets.map((s: Json, i: number) => ({ ...s, value: i === 0 ? `${s.value} ${random.pick(AWKWARD)}` : s.value }));
  if (chance(random, 0.2)) d.secret_references = random.pick([undefined, null, []]);
  if (chance(random, 0.1)) delete d.tag_value_ids;
  d.revisions = d.revisions.map((r: Json, i: number) => {
    if (chance(random, 0.3)) return r; // the older format: id, status, created_at
    return {
      ...r, updated_at: chance(random, 0.5) ? null : new Date(Date.parse(r.created_at) + 1234).toISOString(),
      source: random.pick([null, 'github', d.source]), remote_reconciled: i % 2 === 0,
      source_revision_config: random.pick([null, { repo_ref: 'main' }, d.source_revision_config ?? null]),
    };
  });
  return d;
}

/** The benchmark's tenants, tags and integrations at a small scale, and `count` bent deployments spread over five tenants. */
export function generatedDocument(count: number, seed = 1): Json {
  const size = sizeAt(0.002);
  const { perTenant: _perTenant, ...base } = baseDocument(size);
  const random = seeded(seed);
  const tenants = base.tenants.slice(0, 5);
  const kept = new Set(tenants.map((t) => t.id));
  const integrations = base.integrations.filter((i) => kept.has(i.tenant_id)).map((integration, i) => ({
    ...integration,
    repositories: integration.repositories.slice(0, 5).map((repo, r) => ({ ...repo, id: r === 0 ? 3_000_000_000 + i : repo.id, name: `${repo.name} ${AWKWARD[r]}` })),
    ...(i % 3 === 0 ? {} : { installation_id: i % 3 === 1 ? null : 52_000_000 + i }),
  }));
  const deployments = Array.from({ length: count }, (_, n) => {
    const t = n % tenants.length;
    return bend(deploymentsOf(t, Math.floor(n / tenants.length), Math.floor(n / tenants.length) + 1, size)[0], n, random);
  });
  return { tenants, tags: base.tags.filter((t) => kept.has(t.tenant_id)), integrations, deployments };
}

/** What an update import brings: edits, additions and removals across every kind of row. */
export function changedDocument(doc: Json, seed = 2): Json {
  const random = seeded(seed);
  const changed = structuredClone(doc);
  changed.tenants[0].name = 'renamed tenant';
  changed.tags[0].values[0].value = 'renamed value';
  changed.integrations[0].name = 'renamed integration';
  changed.integrations[1].repositories.shift();
  changed.integrations[2].repositories.push({ id: 9_000_000_001, name: 'new', owner: 'o', url: 'https://x/new', default_branch: 'main' });
  changed.integrations[3].repositories[0].default_branch = 'trunk';
  changed.deployments.forEach((d: Json, n: number) => {
    if (!chance(random, 0.25)) return;
    switch (n % 7) {
      case 0: d.name = `${d.name}-renamed`; break;
      case 1: d.secrets = (d.secrets ?? []).slice(1); break;
      case 2: d.secrets = [{ name: 'ADDED', value: 'added ✓' }, ...(d.secrets ?? []).reverse()]; break;
      case 3: if (d.secrets?.[0]) d.secrets[0].value = 'changed value'; break;
      case 4: d.tag_value_ids = (d.tag_value_ids ?? []).slice(0, 1); break;
      case 5: d.revisions.push({ id: `c0000000-0000-4000-8000-${String(n).padStart(12, '0')}`, status: 'QUEUED', created_at: '2026-05-01T00:00:00Z' }); break;
      default: d.revisions[0].status = 'INTERRUPTED'; if (d.source_config.resource_spec) delete d.source_config.resource_spec.max_scale;
    }
  });
  return changed;
}

export const generatedTenant = (t: number) => tenantId(t);
