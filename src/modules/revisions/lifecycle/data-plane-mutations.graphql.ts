// The data planes' mutations (docs/graphql.md#data-planes): claim queued revisions, report their progress and
// log lines, report a deployment's status; and their handlers, which the REST door's /v2/data-plane routes run
// too (rest/data-plane.route.ts). Only a key issued with `--reconcile` may call them (checked here for GraphQL,
// by the REST door for its own). A mutation checks its input against the limits the REST models declare
// (data-plane-request-schema.ts). A refusal the data plane acts on is a typed result.
import { GraphQLError } from 'graphql';
import { NO_SINGLE_TENANT, TENANT_REQUIRED } from '../../tenancy/authenticate.ts';
import { builder } from '../../../graphql/builder.ts';
import { readFromPrimary, type GraphQLContext } from '../../../graphql/context.ts';
import { badUserInput } from '../../../graphql/errors.ts';
import { unstorableText } from '../../common/storable-text.ts';
import { uuidOfArgument } from '../../../graphql/global-id.ts';
import { DeploymentStatusEnum, RevisionStatusEnum } from '../../deployments/deployment-enums.graphql.ts';
import { DeploymentRef } from '../../deployments/deployment.graphql.ts';
import { MutationErrorRef } from '../../deployments/writes/write-errors.graphql.ts';
import { DeploymentNotFound, RevisionNotFound } from '../../deployments/writes/write-problems.ts';
import type { RevisionStatus } from '../../deployments/deployment-enums.ts';
import { RevisionRef } from '../revision.graphql.ts';
import {
  MAX_LOG_LINE_CHARS, MAX_REVISION_LOG_LINES, MAX_RUNTIME_LOG_LINES, appendRevisionLogs, claimRevisions, isStorableTime, reportDeploymentStatus, reportRevisionStatus,
  type AppendOutcome, type DataPlaneScope, type DeploymentReport, type LogAppend, type ReportOutcome, type RevisionClaim, type StatusReport,
} from './data-plane-writer.ts';
import { DATA_PLANE_LIMITS, appendNeedsLease } from './data-plane-request-schema.ts';
import { InvalidTransition, LeaseLost, LogLineLimit, LogLinesOutOfOrder, NOT_A_DATA_PLANE, RevisionEnded, RevisionNotRunning } from './lifecycle-problems.ts';
import { LogPhaseEnum } from './revision-logs.graphql.ts';
import { recordContact } from '../../listeners/listener-contact.ts';

/** The GraphQL door's permission check of a data plane's call (the REST door makes its own). */
export function requireDataPlane(ctx: GraphQLContext): void {
  if (!ctx.principal.mayReconcile) throw new GraphQLError(NOT_A_DATA_PLANE, { extensions: { code: 'FORBIDDEN', http: { status: 403 } } });
}

/** The data plane's scope (its door has checked its key may reconcile); the operation's reads go to the primary from here on. */
function dataPlaneScope(ctx: GraphQLContext): DataPlaneScope {
  readFromPrimary(ctx);
  const { principal } = ctx;
  return { em: ctx.dataPlaneEm(), tenantIds: principal.tenantIds, apiKeyId: principal.apiKeyId, listenerId: principal.listenerId, leaseSeconds: ctx.revisionLeaseSeconds, afterCommit: ctx.afterCommit };
}

/**
 * Refuses the first text PostgreSQL cannot hold (docs/decisions.md#text-and-json-the-database-can-hold), as its
 * argument's BAD_USER_INPUT; the REST door's body check refuses the same texts (422) before the mutation runs.
 */
function refuseUnstorable(texts: ReadonlyArray<readonly [argument: string, text: string | null | undefined]>): void {
  for (const [argument, text] of texts) {
    const problem = text == null ? undefined : unstorableText(text);
    if (problem) throw badUserInput(argument, problem);
  }
}

/** A log line longer than MAX_LOG_LINE_CHARS, cut there, but never between the halves of a surrogate pair. */
function cutLine(message: string): string {
  if (message.length <= MAX_LOG_LINE_CHARS) return message;
  const high = message.charCodeAt(MAX_LOG_LINE_CHARS - 1);
  const end = high >= 0xd800 && high <= 0xdbff ? MAX_LOG_LINE_CHARS - 1 : MAX_LOG_LINE_CHARS;
  return `${message.slice(0, end)}… [cut]`;
}

// The handlers, for both doors: a call its door has checked (permission, limits, storable texts).

/** Claims up to `limit` revisions; a claim is the bound listener's contact too (its `lastContactAt`, `online`). */
export async function claimRevisionsIn(ctx: GraphQLContext, limit: number): Promise<RevisionClaim[]> {
  const scope = dataPlaneScope(ctx);
  const leases = await claimRevisions(scope, limit);
  if (scope.listenerId !== null) await recordContact(scope.em, { tenantIds: scope.tenantIds, listenerId: scope.listenerId }, null, { readBack: false });
  return leases;
}

export const reportRevisionStatusIn = (ctx: GraphQLContext, report: StatusReport): Promise<ReportOutcome> => reportRevisionStatus(dataPlaneScope(ctx), report);

/** Appends the lines, each longer than MAX_LOG_LINE_CHARS cut there. */
export const appendRevisionLogsIn = (ctx: GraphQLContext, append: LogAppend): Promise<AppendOutcome> =>
  appendRevisionLogs(dataPlaneScope(ctx), { ...append, lines: append.lines.map((line) => ({ ...line, message: cutLine(line.message) })) });

export const reportDeploymentStatusIn = (ctx: GraphQLContext, report: DeploymentReport): Promise<{ tenantId: string }> => reportDeploymentStatus(dataPlaneScope(ctx), report);

/** The revision an id names (raw or global), or RevisionNotFound. */
function revisionIdOf(id: string | number): string {
  const uuid = uuidOfArgument(String(id), 'Revision', 'input.revisionId');
  if (!uuid) throw new RevisionNotFound(String(id));
  return uuid;
}

// The records beside the ids in the payloads are read through the caller's tenant's loaders: a data-plane key
// of several tenants that named none (X-Tenant-Id) has no tenant to read in, so selecting them is refused
// (FORBIDDEN) and the ids say what to read with the tenant named. They are nullable so that the refusal stays
// on them: the write has committed, and the ids (a claim's lease ids above all) must still reach the caller.
const READABLE_WITH_ONE_TENANT = 'Null (with a FORBIDDEN error) when the request acts for several tenants: name one with X-Tenant-Id.';

/**
 * A record beside the ids, read in the caller's tenant. For a request acting for several tenants, the refusal
 * is this field's error only: without the HTTP status the context's refusal carries, so that the answer to a
 * write that committed stays a 200 and its ids reach the caller.
 */
async function recordOfTheTenant<T>(ctx: GraphQLContext, load: () => Promise<T | null>): Promise<T | null> {
  if (ctx.principal.tenantId === NO_SINGLE_TENANT) throw new GraphQLError(TENANT_REQUIRED, { extensions: { code: 'FORBIDDEN' } });
  return load();
}

builder.objectType(InvalidTransition, {
  name: 'InvalidTransitionError',
  interfaces: [MutationErrorRef],
  description: 'The status reported cannot follow the revision\'s status (docs/decisions.md#revision-lifecycle); nothing was changed. '
    + 'Out of a final status nothing follows: the revision has ended.',
  fields: (t) => ({
    from: t.field({ type: RevisionStatusEnum, description: 'The revision\'s status.', resolve: (error) => error.from }),
    to: t.field({ type: RevisionStatusEnum, description: 'The status reported.', resolve: (error) => error.to }),
  }),
});

builder.objectType(LeaseLost, {
  name: 'LeaseLostError',
  interfaces: [MutationErrorRef],
  description: 'The lease sent is not the revision\'s: it lapsed (the revision was queued again or interrupted) or another claim holds it. Stop working on the revision.',
  fields: (t) => ({ status: t.field({ type: RevisionStatusEnum, description: 'The revision\'s status now.', resolve: (error) => error.status }) }),
});

builder.objectType(RevisionEnded, {
  name: 'RevisionEndedError',
  interfaces: [MutationErrorRef],
  description: 'The revision has ended (a final status): it takes no more log lines, and nothing was stored. Send its last lines before its final report; stop working on it.',
  fields: (t) => ({ status: t.field({ type: RevisionStatusEnum, description: 'The final status the revision ended in.', resolve: (error) => error.status }) }),
});

builder.objectType(RevisionNotRunning, {
  name: 'RevisionNotRunningError',
  interfaces: [MutationErrorRef],
  description: 'Runtime log lines were sent for a revision that is not DEPLOYED (not yet, or it failed): nothing was stored.',
  fields: (t) => ({ status: t.field({ type: RevisionStatusEnum, description: 'The revision\'s status.', resolve: (error) => error.status }) }),
});

builder.objectType(LogLineLimit, {
  name: 'LogLineLimitError',
  interfaces: [MutationErrorRef],
  description: `The append's new lines would take the revision's log past its limit (${MAX_REVISION_LOG_LINES} lines, build and deploy together; runtime lines are not counted); none was stored. `
    + 'At most `limit - stored` more lines fit.',
  fields: (t) => ({
    limit: t.exposeInt('limit', { description: 'The most log lines a revision keeps.' }),
    stored: t.exposeInt('stored', { description: 'The lines the revision has.' }),
  }),
});

builder.objectType(LogLinesOutOfOrder, {
  name: 'LogLinesOutOfOrderError',
  interfaces: [MutationErrorRef],
  description: 'The append would leave a gap: send from `expectedLine` on.',
  fields: (t) => ({ expectedLine: t.exposeInt('expectedLine', { description: 'The number the next line stored gets.' }) }),
});

export const RevisionLeaseRef = builder.objectRef<RevisionClaim>('RevisionLease').implement({
  description: 'A revision claimed by the caller: the lease its reports carry, and when the lease lapses unless a report renews it.',
  fields: (t) => ({
    leaseId: t.field({ type: 'UUID', description: 'Send it with every report on this revision.', resolve: (lease) => lease.leaseId }),
    expiresAt: t.expose('expiresAt', { type: 'DateTime', description: 'When the lease lapses unless a report (any status, also the same again) renews it.' }),
    tenantId: t.field({ type: 'UUID', description: 'The tenant of the revision (send it as X-Tenant-Id to read its records with a key of several tenants).', resolve: (lease) => lease.tenantId }),
    revisionId: t.field({ type: 'UUID', description: 'Raw id of the revision.', resolve: (lease) => lease.revisionId }),
    deploymentId: t.field({ type: 'UUID', description: 'Raw id of its deployment.', resolve: (lease) => lease.deploymentId }),
    revision: t.field({
      type: RevisionRef,
      nullable: true,
      description: `The revision claimed (AWAITING_BUILD). ${READABLE_WITH_ONE_TENANT}`,
      resolve: (lease, _args, ctx) => recordOfTheTenant(ctx, () => ctx.loaders.revisions.byId.load(lease.revisionId)),
    }),
    deployment: t.field({
      type: DeploymentRef,
      nullable: true,
      description: `Its deployment: what to build and run (secrets in clear only for a key with --read-secrets). ${READABLE_WITH_ONE_TENANT}`,
      resolve: (lease, _args, ctx) => recordOfTheTenant(ctx, () => ctx.loaders.deployments.byId.load(lease.deploymentId)),
    }),
  }),
});

const ClaimRevisionsInput = builder.inputType('ClaimRevisionsInput', {
  description: 'How many queued revisions to take.',
  fields: (t) => ({
    clientMutationId: t.string({ description: 'Echoed in the payload.' }),
    limit: t.int({ defaultValue: 1, description: `Most revisions to claim, ${DATA_PLANE_LIMITS.claim.ge} to ${DATA_PLANE_LIMITS.claim.le}.` }),
  }),
});

builder.mutationField('claimRevisions', (t) => t.field({
  type: builder.objectRef<{ clientMutationId?: string | null; leases: RevisionClaim[] }>('ClaimRevisionsPayload').implement({
    description: 'The revisions claimed, oldest first; none when nothing is queued.',
    fields: (p) => ({
      clientMutationId: p.string({ nullable: true, description: 'As sent in the input.', resolve: (payload) => payload.clientMutationId ?? null }),
      leases: p.field({ type: [RevisionLeaseRef], description: 'One per revision claimed, each now AWAITING_BUILD.', resolve: (payload) => payload.leases }),
    }),
  }),
  description: 'Claims queued revisions of the key\'s tenants, oldest first (REST: POST /v2/data-plane/claims). '
    + 'Each goes to one data plane only, also when several claim at once, and a deployment rolls out one revision at a time.',
  args: { input: t.arg({ type: ClaimRevisionsInput, required: true, description: 'How many to claim.' }) },
  resolve: async (_root, { input }, ctx) => {
    requireDataPlane(ctx);
    const limit = input.limit ?? 1;
    const { ge, le } = DATA_PLANE_LIMITS.claim;
    if (limit < ge || limit > le) throw badUserInput('input.limit', `must be between ${ge} and ${le}; got ${limit}`);
    return { clientMutationId: input.clientMutationId, leases: await claimRevisionsIn(ctx, limit) };
  },
}));

const ReportRevisionStatusInput = builder.inputType('ReportRevisionStatusInput', {
  description: 'A revision\'s new status, from the data plane holding its lease.',
  fields: (t) => ({
    clientMutationId: t.string({ description: 'Echoed in the payload.' }),
    revisionId: t.id({ required: true, description: 'The revision (raw UUID or global id).' }),
    leaseId: t.field({ type: 'UUID', required: true, description: 'The lease of the claim.' }),
    status: t.field({ type: RevisionStatusEnum, required: true, description: 'The new status; the current one again renews the lease and changes nothing else.' }),
    message: t.string({ description: 'What to say with it (a failure\'s reason), shown as the revision\'s `statusMessage`.' }),
  }),
});

interface StatusReported {
  clientMutationId?: string | null;
  revisionId: string;
  status: RevisionStatus;
  applied: boolean;
  leaseExpiresAt: Date | null;
}

builder.mutationField('reportRevisionStatus', (t) => t.field({
  type: builder.objectRef<StatusReported>('ReportRevisionStatusPayload').implement({
    description: 'The revision after the report.',
    fields: (p) => ({
      clientMutationId: p.string({ nullable: true, description: 'As sent in the input.', resolve: (payload) => payload.clientMutationId ?? null }),
      revisionId: p.field({ type: 'UUID', description: 'Raw id of the revision.', resolve: (payload) => payload.revisionId }),
      status: p.field({ type: RevisionStatusEnum, description: 'Its status now.', resolve: (payload) => payload.status }),
      applied: p.exposeBoolean('applied', { description: 'False when the revision already had the status (a retried report): only the lease was renewed.' }),
      leaseExpiresAt: p.field({ type: 'DateTime', nullable: true, description: 'When the lease lapses unless renewed; null once the revision is final.', resolve: (payload) => payload.leaseExpiresAt }),
      revision: p.field({
        type: RevisionRef, nullable: true, description: `The revision. ${READABLE_WITH_ONE_TENANT}`,
        resolve: (payload, _args, ctx) => recordOfTheTenant(ctx, () => ctx.loaders.revisions.byId.load(payload.revisionId)),
      }),
    }),
  }),
  description: 'Moves a claimed revision along its lifecycle (REST: POST /v2/data-plane/revisions/{revision_id}/status); DEPLOYED makes it the deployment\'s active revision.',
  args: { input: t.arg({ type: ReportRevisionStatusInput, required: true, description: 'The report.' }) },
  errors: { types: [RevisionNotFound, LeaseLost, InvalidTransition], union: { name: 'ReportRevisionStatusResult', description: 'The revision after the report, or why it was refused.' } },
  resolve: async (_root, { input }, ctx) => {
    requireDataPlane(ctx);
    const revisionId = revisionIdOf(input.revisionId);
    refuseUnstorable([['input.message', input.message]]);
    const outcome = await reportRevisionStatusIn(ctx, { revisionId, leaseId: input.leaseId, status: input.status, message: input.message ?? null });
    return { clientMutationId: input.clientMutationId, revisionId, status: input.status, applied: outcome.applied, leaseExpiresAt: outcome.leaseExpiresAt };
  },
}));

const LogLineInput = builder.inputType('RevisionLogLineInput', {
  description: 'One log line.',
  fields: (t) => ({
    message: t.string({ required: true, description: `The line (without its line break); longer than ${MAX_LOG_LINE_CHARS} characters, it is cut.` }),
    level: t.string({ description: 'Its level, as the builder says it (`info`, `error`, …).' }),
    timestamp: t.field({ type: 'DateTime', description: 'When it was written; default: when it is stored.' }),
  }),
});

const AppendRevisionLogsInput = builder.inputType('AppendRevisionLogsInput', {
  description: `Log lines of a revision, numbered from 0 per revision and phase: lines sent again (a retry) are stored once. A revision keeps ${MAX_REVISION_LOG_LINES} build and deploy lines at most, `
    + `and its newest ${MAX_RUNTIME_LOG_LINES} runtime lines.`,
  fields: (t) => ({
    clientMutationId: t.string({ description: 'Echoed in the payload.' }),
    revisionId: t.id({ required: true, description: 'The revision (raw UUID or global id).' }),
    leaseId: t.field({ type: 'UUID', description: 'The lease of the claim: required for BUILD and DEPLOY lines; RUNTIME lines need none (one sent is not checked).' }),
    phase: t.field({ type: LogPhaseEnum, required: true, description: 'Which log: RUNTIME lines (the running service\'s) are taken once the revision is DEPLOYED.' }),
    firstLine: t.int({ required: true, description: 'The number of the first line sent: at most the next line expected (no gaps).' }),
    lines: t.field({ type: [LogLineInput], required: true, description: `${DATA_PLANE_LIMITS.lines.min} to ${DATA_PLANE_LIMITS.lines.max} lines, in order.` }),
  }),
});

builder.mutationField('appendRevisionLogs', (t) => t.field({
  type: builder.objectRef<{ clientMutationId?: string | null; appended: number; nextLine: number; leaseExpiresAt: Date | null }>('AppendRevisionLogsPayload').implement({
    description: 'What the append stored.',
    fields: (p) => ({
      clientMutationId: p.string({ nullable: true, description: 'As sent in the input.', resolve: (payload) => payload.clientMutationId ?? null }),
      appended: p.exposeInt('appended', { description: 'Lines stored by this append (those stored before are not stored again).' }),
      nextLine: p.exposeInt('nextLine', { description: 'The number the next line gets.' }),
      leaseExpiresAt: p.field({ type: 'DateTime', nullable: true, description: 'When the lease lapses unless renewed (the append renewed it); null for RUNTIME lines, which hold no lease.', resolve: (payload) => payload.leaseExpiresAt }),
    }),
  }),
  description: 'Appends build or deploy log lines of a claimed revision in progress, or runtime lines of a DEPLOYED one (REST: POST /v2/data-plane/revisions/{revision_id}/logs). '
    + `A revision that has ended takes no build or deploy lines (RevisionEndedError): send the last lines before the final report. A revision keeps ${MAX_REVISION_LOG_LINES} `
    + `build and deploy lines at most (LogLineLimitError). RUNTIME lines need no lease, only a DEPLOYED revision (RevisionNotRunningError), and only the newest ${MAX_RUNTIME_LOG_LINES} are kept.`,
  args: { input: t.arg({ type: AppendRevisionLogsInput, required: true, description: 'The lines.' }) },
  errors: { types: [RevisionNotFound, LeaseLost, RevisionEnded, RevisionNotRunning, LogLinesOutOfOrder, LogLineLimit], union: { name: 'AppendRevisionLogsResult', description: 'What the append stored, or why it was refused.' } },
  resolve: async (_root, { input }, ctx) => {
    requireDataPlane(ctx);
    const { lines: { min, max }, firstLine } = DATA_PLANE_LIMITS;
    if (input.lines.length < min || input.lines.length > max) throw badUserInput('input.lines', `must hold ${min} to ${max} lines; got ${input.lines.length}`);
    if (input.firstLine < firstLine.ge) throw badUserInput('input.firstLine', `must be ${firstLine.ge} or more; got ${input.firstLine}`);
    if (input.leaseId == null && appendNeedsLease(input.phase)) throw badUserInput('input.leaseId', 'is required for build and deploy lines');
    const outOfRange = input.lines.findIndex((line) => line.timestamp != null && !isStorableTime(line.timestamp));
    if (outOfRange >= 0) throw badUserInput(`input.lines[${outOfRange}].timestamp`, 'must be a time of the years 1 to 9999');
    refuseUnstorable(input.lines.flatMap((line, index) => [[`input.lines[${index}].message`, line.message], [`input.lines[${index}].level`, line.level]] as const));
    const lines = input.lines.map((line) => ({ message: line.message, level: line.level ?? null, timestamp: line.timestamp ?? null }));
    const outcome = await appendRevisionLogsIn(ctx, { revisionId: revisionIdOf(input.revisionId), leaseId: input.leaseId ?? null, phase: input.phase, firstLine: input.firstLine, lines });
    return { clientMutationId: input.clientMutationId, ...outcome };
  },
}));

const ReportDeploymentStatusInput = builder.inputType('ReportDeploymentStatusInput', {
  description: 'What the data plane running a deployment sees of it; only the fields given change.',
  fields: (t) => ({
    clientMutationId: t.string({ description: 'Echoed in the payload.' }),
    deploymentId: t.id({ required: true, description: 'The deployment (raw UUID or global id).' }),
    status: t.field({ type: DeploymentStatusEnum, description: 'Its status.' }),
    customUrl: t.string({ description: 'Where it answers (`source_config.custom_url`); null clears it.' }),
    imageVersion: t.string({ description: 'The image version it runs; null clears it.' }),
  }),
});

builder.mutationField('reportDeploymentStatus', (t) => t.field({
  type: builder.objectRef<{ clientMutationId?: string | null; deploymentId: string }>('ReportDeploymentStatusPayload').implement({
    description: 'The deployment after the report.',
    fields: (p) => ({
      clientMutationId: p.string({ nullable: true, description: 'As sent in the input.', resolve: (payload) => payload.clientMutationId ?? null }),
      deploymentId: p.field({ type: 'UUID', description: 'Raw id of the deployment.', resolve: (payload) => payload.deploymentId }),
      deployment: p.field({
        type: DeploymentRef, nullable: true, description: `The deployment. ${READABLE_WITH_ONE_TENANT}`,
        resolve: (payload, _args, ctx) => recordOfTheTenant(ctx, () => ctx.loaders.deployments.byId.load(payload.deploymentId)),
      }),
    }),
  }),
  description: 'Reports a deployment\'s status, URL and image version (REST: POST /v2/data-plane/deployments/{deployment_id}/status).',
  args: { input: t.arg({ type: ReportDeploymentStatusInput, required: true, description: 'The report.' }) },
  errors: { types: [DeploymentNotFound], union: { name: 'ReportDeploymentStatusResult', description: 'The deployment after the report, or why it was refused.' } },
  resolve: async (_root, { input }, ctx) => {
    requireDataPlane(ctx);
    const deploymentId = uuidOfArgument(String(input.deploymentId), 'Deployment', 'input.deploymentId');
    if (!deploymentId) throw new DeploymentNotFound(String(input.deploymentId));
    refuseUnstorable([['input.customUrl', input.customUrl], ['input.imageVersion', input.imageVersion]]);
    await reportDeploymentStatusIn(ctx, {
      deploymentId,
      status: input.status,
      ...(input.customUrl !== undefined && { customUrl: input.customUrl }),
      ...(input.imageVersion !== undefined && { imageVersion: input.imageVersion }),
    });
    return { clientMutationId: input.clientMutationId, deploymentId };
  },
}));
