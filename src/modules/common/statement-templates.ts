// The SQL of a lean read, built by MikroORM's QueryBuilder once per query shape instead of once per request.
// Building costs about 0.3 ms of CPU for a small page query (more than PostgreSQL takes to answer it), and
// dashboards and the REST routes send the same few shapes over and over.
//
// A shape is a query with its values left out: the entity, the columns, the order, whether there is a limit
// and an offset, and the where object's keys, operators and list lengths (booleans and nulls are part of the
// shape: MikroORM may write them into the SQL itself). The template is built by the QueryBuilder itself,
// with a unique stand-in for every value, and kept only if each parameter of the statement it built is
// exactly one stand-in, or a tenant id its filters added (the root's, and each filtered join's), or a boolean
// of the shape. Anything else (a value MikroORM transforms, a raw fragment in the where object or one with
// parameters, a key that is not a property) makes the shape one that is built per query, as before. Raw fields
// and order keys without parameters (the alphabetical order of text-queries.ts) are part of the shape by their
// SQL. The tenant parameters are filled from the EntityManager running the query, so a template never carries
// a tenant from one request to another, and an EntityManager without a tenant still throws.
import { RawQueryFragment, type EntityName } from '@mikro-orm/postgresql';
import type { TenantSafeEntityManager } from '../../db/tenant-safe-entity-manager.ts';
import { TENANT_FILTER } from '../../db/tenant-filter.ts';
import { scopedTenantId } from './tenant-scope.ts';

export interface LeanQuery {
  /** Relations of the root (alias `e`) joined with their target entity's filters, the tenant's included. */
  joins?: LeanJoin[];
  orderBy?: object[];
  /** Property names, or raw SQL fragments without parameters (described by their SQL in the shape). */
  fields?: (string | RawQueryFragment)[];
  limit?: number;
  offset?: number;
}

export interface LeanJoin {
  /** `e.property`: a relation of the root entity. */
  field: string;
  alias: string;
  /** The entity the relation points at, whose filters the join applies. */
  entity: EntityName<any>;
}

interface Template {
  sql: string;
  /** Per parameter: where its value comes from. */
  slots: Slot[];
}
type Slot = { kind: 'value'; index: number } | { kind: 'tenant' } | { kind: 'constant'; value: boolean };

const OPERATORS = new Set(['$and', '$or', '$in', '$nin', '$eq', '$ne', '$lt', '$lte', '$gt', '$gte', '$like', '$ilike']);
const MAX_SHAPES = 256;
const NOT_CACHEABLE = null;

/** The values of a where object in walking order, and its shape; undefined when it has anything unexpected. */
function valuesAndShape(where: unknown, properties: Set<string>): { values: unknown[]; shape: string } | undefined {
  const values: unknown[] = [];
  let shape = '';
  const walk = (node: unknown): boolean => {
    if (typeof node === 'string' || typeof node === 'number' || node instanceof Date) {
      values.push(node);
      shape += node instanceof Date ? 'd' : typeof node === 'string' ? 's' : 'n';
      return true;
    }
    if (typeof node === 'boolean' || node === null) {
      shape += String(node);
      return true;
    }
    if (Array.isArray(node)) {
      shape += `[${node.length}:`;
      for (const item of node) if (!walk(item)) return false;
      shape += ']';
      return true;
    }
    if (typeof node !== 'object' || (Object.getPrototypeOf(node) !== Object.prototype && Object.getPrototypeOf(node) !== null)) return false;
    if (Object.getOwnPropertySymbols(node).length > 0) return false;
    shape += '{';
    for (const [name, child] of Object.entries(node)) {
      if (!OPERATORS.has(name) && !properties.has(name)) return false;
      shape += `${JSON.stringify(name)}:`;
      if (!walk(child)) return false;
      shape += ',';
    }
    shape += '}';
    return true;
  };
  return walk(where) ? { values, shape } : undefined;
}

/** A copy of `where` with every value replaced by its stand-in (same walking order as valuesAndShape). */
function withStandIns(where: unknown, standIns: unknown[], next: { index: number }): unknown {
  if (typeof where === 'string' || typeof where === 'number' || where instanceof Date) return standIns[next.index++];
  if (Array.isArray(where)) return where.map((item) => withStandIns(item, standIns, next));
  if (where !== null && typeof where === 'object') {
    return Object.fromEntries(Object.entries(where).map(([name, child]) => [name, withStandIns(child, standIns, next)]));
  }
  return where;
}

/** A value that no caller sends, of the same type as `value`: found by identity in the built parameters. */
function standInFor(value: unknown, index: number): unknown {
  if (value instanceof Date) return new Date(Date.UTC(1901, 0, 1) + index);
  // Mixed case and control characters: a transforming type (lower-casing, trimming) would change it, and the
  // shape would not be cached.
  if (typeof value === 'string') return `\u0001StandIn-${index}\u0002`;
  return 7_000_000_007 + index;
}

// A raw fragment turns into a unique symbol when made a string: its SQL describes it (one with parameters is
// not cached: they would be frozen into the template).
const describeField = (field: string | RawQueryFragment) => (typeof field === 'string' ? field : `raw(${field.sql})`);
const plainFields = (fields: LeanQuery['fields']) => !fields || fields.every((field) => typeof field === 'string' || field.params.length === 0);

/**
 * The order keys described for the shape: a property name as it is, a raw fragment (such as the alphabetical
 * order of text-queries.ts, whose SQL names the alias as a placeholder) by its SQL. Undefined when a key is a
 * symbol that is no known fragment, or a fragment with parameters: such an order is built per query.
 */
function describeOrder(orderBy: LeanQuery['orderBy']): string | undefined {
  if (!orderBy) return '[]';
  const described: [string, unknown][][] = [];
  for (const order of orderBy) {
    const keys: [string, unknown][] = [];
    for (const key of Reflect.ownKeys(order)) {
      const direction = (order as Record<string | symbol, unknown>)[key];
      if (typeof key === 'string') {
        keys.push([key, direction]);
        continue;
      }
      const fragment = RawQueryFragment.getKnownFragment(key);
      if (!fragment || fragment.params.length > 0) return undefined;
      keys.push([`raw(${fragment.sql})`, direction]);
    }
    described.push(keys);
  }
  return JSON.stringify(described);
}

/** The QueryBuilder of a lean read: every active filter applied (the tenant's included), then the query. */
async function leanQueryBuilder(em: TenantSafeEntityManager, entity: EntityName<any>, where: object, query: LeanQuery) {
  const qb = await em.filteredQueryBuilder(entity, 'e');
  for (const join of query.joins ?? []) await em.filteredJoin(qb, join.field, join.alias, join.entity);
  qb.select((query.fields ?? ['*']) as never).andWhere(where as never);
  if (query.orderBy) qb.orderBy(query.orderBy as never);
  if (query.limit !== undefined) qb.limit(query.limit);
  if (query.offset) qb.offset(query.offset);
  return qb;
}

const propertyNames = new WeakMap<object, Set<string>>();
function propertyNamesOf(meta: { properties: object }): Set<string> {
  let names = propertyNames.get(meta);
  if (!names) propertyNames.set(meta, (names = new Set(Object.keys(meta.properties))));
  return names;
}

export class StatementTemplates {
  private readonly templates = new Map<string, Template | typeof NOT_CACHEABLE>();

  /** The rows of a lean read: through a template when the shape allows one, else from a QueryBuilder. */
  async rows<Row>(em: TenantSafeEntityManager, entity: EntityName<any>, where: object, query: LeanQuery): Promise<Row[]> {
    const meta = em.getMetadata().find(entity);
    const joined = (query.joins ?? []).map((join) => em.getMetadata().find(join.entity));
    // Only the tenant filter's parameters (the root's and each join's) are filled per query. Any other filter
    // (the configuration's; the EntityManager cannot add its own, see tenant-safe-entity-manager.ts), a
    // transaction or a session context (row-level security) is left to the QueryBuilder's own execution, built
    // per query as before.
    const cacheable = meta && [meta, ...joined].every((filtered) => Object.keys(filtered?.filters ?? {}).join() === TENANT_FILTER)
      && Object.keys(em.config.get('filters') ?? {}).length === 0
      && !em.getTransactionContext() && !em.getSessionContext() && !em.getTransactionSessionContext()
      && plainFields(query.fields);
    const order = cacheable ? describeOrder(query.orderBy) : undefined;
    const described = order !== undefined ? valuesAndShape(where, propertyNamesOf(meta!)) : undefined;
    const builtForThisQuery = async () => (await (await leanQueryBuilder(em, entity, where, query)).execute('all', false)) as Row[];
    if (!described) return builtForThisQuery();

    const joins = query.joins?.map((join, index) => `${join.field}>${join.alias}:${joined[index]!.className}`).join() ?? '';
    const key = `${meta!.className}|${joins}|${query.fields?.map(describeField).join() ?? '*'}|${order}|${query.limit !== undefined}|${!!query.offset}|${described.shape}`;
    let template = this.templates.get(key);
    if (template === undefined) {
      template = await this.templateFor(em, entity, meta!.className, where, query, described.values);
      if (this.templates.size >= MAX_SHAPES) this.templates.delete(this.templates.keys().next().value!);
      this.templates.set(key, template);
    }
    if (template === NOT_CACHEABLE) return builtForThisQuery();

    const tenantId = scopedTenantId(em, meta!.className);
    const values = [...described.values];
    if (query.limit !== undefined) values.push(query.limit);
    if (query.offset) values.push(query.offset);
    const params = template.slots.map((slot) => slot.kind === 'value' ? values[slot.index] : slot.kind === 'tenant' ? tenantId : slot.value);
    const write = !em.config.get('preferReadReplicas');
    return await em.getConnection(write ? 'write' : 'read').execute(template.sql, params, 'all', undefined, { id: em.id } as never) as Row[];
  }

  private async templateFor(
    em: TenantSafeEntityManager, entity: EntityName<any>, entityName: string, where: object, query: LeanQuery, values: unknown[],
  ): Promise<Template | typeof NOT_CACHEABLE> {
    const all = [...values];
    if (query.limit !== undefined) all.push(query.limit);
    if (query.offset) all.push(query.offset);
    const standIns = all.map(standInFor);
    const valueCount = values.length;
    const standInQuery: LeanQuery = {
      ...query,
      limit: query.limit === undefined ? undefined : standIns[valueCount] as number,
      offset: query.offset ? standIns[all.length - 1] as number : undefined,
    };
    const tenantId = scopedTenantId(em, entityName);
    const qb = await leanQueryBuilder(em, entity, withStandIns(where, standIns, { index: 0 }) as object, standInQuery);
    const { sql, params } = qb.toQuery();
    const used = new Array<boolean>(standIns.length).fill(false);
    const slots: Slot[] = [];
    let tenantSlots = 0;
    for (const param of params) {
      const index = standIns.indexOf(param);
      if (index >= 0 && !used[index]) {
        used[index] = true;
        slots.push({ kind: 'value', index });
      } else if (param === tenantId && index < 0) {
        tenantSlots++;
        slots.push({ kind: 'tenant' });
      } else if (typeof param === 'boolean') {
        slots.push({ kind: 'constant', value: param });
      } else {
        return NOT_CACHEABLE;
      }
    }
    return used.every(Boolean) && tenantSlots === 1 + (query.joins?.length ?? 0) ? { sql, slots } : NOT_CACHEABLE;
  }
}

/** One set of templates per ORM (tests run several, with different schemas, in one process). */
const templatesOfOrm = new WeakMap<object, StatementTemplates>();

export function statementTemplates(em: TenantSafeEntityManager): StatementTemplates {
  const metadata = em.getMetadata();
  let templates = templatesOfOrm.get(metadata);
  if (!templates) templatesOfOrm.set(metadata, (templates = new StatementTemplates()));
  return templates;
}
