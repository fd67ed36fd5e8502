// The data planes' wake-ups (docs/decisions.md#listeners): the database announces on LISTENER_WORK_CHANNEL, at
// the commit, that a revision may have become claimable for a listener (migration listeners: a revision queued,
// queued again, or one ending in progress, which lets the next of its deployment go):
// `<tenant id> <listener id, or - for the deployments on no listener>`. A data plane's stream hears those of its
// tenants and its listener, coalesced: one wake-up tells it to claim until nothing is left, however many
// revisions were queued meanwhile.
import type { GraphQLError } from 'graphql';
import { isUuid } from '../common/uuid.ts';
import { LiveStream } from '../deployments/live/live-stream.ts';

export const LISTENER_WORK_CHANNEL = 'listener_work';

/** Why a data plane is woken. */
export type WakeUpReason = 'subscribed' | 'queued' | 'may_have_missed';

export interface WakeUp {
  reason: WakeUpReason;
  /** The tenant whose revision was queued; null for the other reasons (any of the key's tenants). */
  tenantId: string | null;
}

/** The key a stream and a notification meet at: the tenant and the listener (`-`: none). */
export const workKey = (tenantId: string, listenerId: string | null) => `${tenantId} ${listenerId ?? '-'}`;

/** A notification's key, or undefined for a payload that is not ours. */
export function parseWorkNotification(payload: string): { tenantId: string; key: string } | undefined {
  const [tenantId, listenerId, ...rest] = payload.split(' ');
  if (rest.length > 0 || !tenantId || !listenerId || !isUuid(tenantId) || (listenerId !== '-' && !isUuid(listenerId))) return undefined;
  const tenant = tenantId.toLowerCase();
  return { tenantId: tenant, key: workKey(tenant, listenerId === '-' ? null : listenerId.toLowerCase()) };
}

/**
 * One data plane's wake-ups. It starts with one (`subscribed`: claim what was queued before), and whatever
 * arrives before the data plane reads the next is one wake-up. Notifications missed (a lost LISTEN connection)
 * are a wake-up too, not an error: claiming is how a data plane finds out what it missed.
 */
export class WakeUpStream extends LiveStream<WakeUp> {
  private pending: WakeUp | undefined = { reason: 'subscribed', tenantId: null };

  receive(wakeUp: WakeUp): void {
    if (this.isEnding) return;
    this.pending ??= wakeUp;
    this.signal();
  }

  override missed(_notice: GraphQLError): void {
    this.receive({ reason: 'may_have_missed', tenantId: null });
  }

  protected take(): WakeUp | undefined {
    const wakeUp = this.pending;
    this.pending = undefined;
    return wakeUp;
  }

  protected hasWaiting(): boolean {
    return false;
  }

  protected async prepare(): Promise<void> {}

  protected drop(): void {
    this.pending = undefined;
  }
}
