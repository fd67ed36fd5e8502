// What a listener's data plane has beside the data-plane mutations (docs/graphql.md#listeners): `dataPlaneWakeUps`,
// a subscription that wakes it when a revision may be claimable for it, across workers and gateways (the
// database's NOTIFY, heard by every gateway), so that it never asks in a loop; and `reportListenerHeartbeat`,
// its contact and version while idle (`Listener.online`), whose handler the REST door's heartbeat runs too.
import { GraphQLError } from 'graphql';
import { builder } from '../../graphql/builder.ts';
import { readFromPrimary, type GraphQLContext } from '../../graphql/context.ts';
import { badUserInput } from '../../graphql/errors.ts';
import { unstorableText } from '../common/storable-text.ts';
import { liveUpdateErrors } from '../deployments/live/live-update-errors.ts';
import { requireDataPlane } from '../revisions/lifecycle/data-plane-mutations.graphql.ts';
import { recordContact, type ListenerContact } from './listener-contact.ts';
import { HEARTBEAT_SECONDS, isOnline } from './listener-online.ts';
import type { WakeUp } from './listener-wake-ups.ts';

const NOT_BOUND = 'This API key is bound to no listener: issue one with `npm run apikey -- create --reconcile --listener <listener id>`';

const WakeUpReasonEnum = builder.enumType('WakeUpReason', {
  description: 'Why a data plane is woken: each time, claim until a claim takes nothing.',
  values: {
    SUBSCRIBED: { value: 'subscribed', description: 'The first event of every subscription: claim what was queued before it.' },
    QUEUED: { value: 'queued', description: 'A revision was queued for the data plane (or one ended that held the next back).' },
    MAY_HAVE_MISSED: { value: 'may_have_missed', description: 'The gateway may have missed announcements for a moment (a lost database connection).' },
  } as const,
});

const WakeUpRef = builder.objectRef<WakeUp>('DataPlaneWakeUp').implement({
  description: 'A revision may be claimable by the data plane: claim (claimRevisions) until nothing is left.',
  fields: (t) => ({
    reason: t.field({ type: WakeUpReasonEnum, description: 'Why now.', resolve: (wakeUp) => wakeUp.reason }),
    tenantId: t.field({ type: 'UUID', nullable: true, description: 'The tenant the revision was queued in (QUEUED only).', resolve: (wakeUp) => wakeUp.tenantId }),
  }),
});

builder.subscriptionField('dataPlaneWakeUps', (t) => t.field({
  type: WakeUpRef,
  description: 'Wakes a data plane (a key issued with --reconcile) within moments of a revision becoming claimable by it: one of its listener\'s deployments, '
    + 'or of a deployment on no listener for a key bound to none, in any tenant it acts for. Coalesced: a wake-up stands for everything queued before it is read. '
    + 'The first event comes at once (SUBSCRIBED). Subscribe again after the stream ends (a gateway restart): that first event covers what was queued meanwhile.',
  subscribe: async (_root, _args, ctx) => {
    requireDataPlane(ctx);
    const feed = ctx.deploymentChanges;
    if (!feed) throw liveUpdateErrors.unavailable();
    const stream = feed.openWakeUps(ctx.principal);
    const { listenerId, tenantIds } = ctx.principal;
    if (listenerId !== null) await recordContact(ctx.dataPlaneEm(), { tenantIds, listenerId }, null, { readBack: false }).catch(async (error: unknown) => {
      await stream.return();
      throw error;
    });
    return stream;
  },
  resolve: (wakeUp: WakeUp | GraphQLError) => {
    if (wakeUp instanceof GraphQLError) throw wakeUp;
    return wakeUp;
  },
}));

const HeartbeatInput = builder.inputType('ReportListenerHeartbeatInput', {
  description: 'The bound listener\'s data plane is alive, at this version.',
  fields: (t) => ({
    clientMutationId: t.string({ description: 'Echoed in the payload.' }),
    version: t.string({ description: 'The data plane\'s version: becomes the listener\'s `version`; absent or null keeps it.' }),
  }),
});

builder.mutationField('reportListenerHeartbeat', (t) => t.field({
  type: builder.objectRef<ListenerContact & { clientMutationId?: string | null }>('ReportListenerHeartbeatPayload').implement({
    description: 'The listener as its contact left it.',
    fields: (p) => ({
      clientMutationId: p.string({ nullable: true, description: 'As sent in the input.', resolve: (payload) => payload.clientMutationId ?? null }),
      listenerId: p.field({ type: 'UUID', description: 'Raw id of the listener.', resolve: (payload) => payload.listenerId }),
      version: p.string({ nullable: true, description: 'Its version now.', resolve: (payload) => payload.version }),
      lastContactAt: p.field({ type: 'DateTime', description: 'Its last contact (written at most every few seconds).', resolve: (payload) => payload.lastContactAt }),
      online: p.boolean({ description: 'Whether it counts as online now.', resolve: (payload) => isOnline(payload.lastContactAt) }),
    }),
  }),
  description: `Reports that a data plane bound to a listener is alive (REST: POST /v2/data-plane/heartbeat): send it every ${HEARTBEAT_SECONDS} seconds while idle, `
    + 'so that the listener stays `online`; claims count as contact too.',
  args: { input: t.arg({ type: HeartbeatInput, required: true, description: 'The heartbeat.' }) },
  resolve: async (_root, { input }, ctx) => {
    requireDataPlane(ctx);
    requireListener(ctx);
    const problem = input.version == null ? undefined : unstorableText(input.version);
    if (problem) throw badUserInput('input.version', problem);
    return { ...await reportHeartbeat(ctx, input.version ?? null), clientMutationId: input.clientMutationId };
  },
}));

/** A heartbeat's key must be bound to a listener (both doors check it, after the key's permission). */
function requireListener(ctx: GraphQLContext): string {
  const { listenerId } = ctx.principal;
  if (listenerId === null) throw new GraphQLError(NOT_BOUND, { extensions: { code: 'FORBIDDEN', http: { status: 403 } } });
  return listenerId;
}

/** The bound listener's contact, at `version` (null keeps its version): both doors' handler. */
export async function reportHeartbeat(ctx: GraphQLContext, version: string | null): Promise<ListenerContact> {
  const listenerId = requireListener(ctx);
  readFromPrimary(ctx);
  const contact = await recordContact(ctx.dataPlaneEm(), { tenantIds: ctx.principal.tenantIds, listenerId }, version);
  // The listener was deleted since the key was issued: the key works on nothing.
  if (!contact) throw new GraphQLError(`Listener ID ${listenerId} not found.`, { extensions: { code: 'NOT_FOUND', http: { status: 404 } } });
  await ctx.afterCommit?.();
  return contact;
}
