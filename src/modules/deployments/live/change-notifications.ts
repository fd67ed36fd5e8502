// What the database's triggers announce on DEPLOYMENT_CHANGE_CHANNEL (the migration
// deployment_change_notifications): `<tenant id> <c|u|d> <deployment id> <deployment id> …`, ids only.
import { isUuid } from '../../common/uuid.ts';

export const DEPLOYMENT_CHANGE_CHANNEL = 'deployment_changed';

export type ChangeKind = 'created' | 'updated' | 'deleted';

const KINDS: Record<string, ChangeKind> = { c: 'created', u: 'updated', d: 'deleted' };

export interface ChangeNotification {
  tenantId: string;
  kind: ChangeKind;
  deploymentIds: string[];
}

/** The notification, or undefined for a payload that is not one (never from our triggers; ignored). */
export function parseChangeNotification(payload: string): ChangeNotification | undefined {
  const [tenantId, kind, ...deploymentIds] = payload.split(' ');
  if (!tenantId || !isUuid(tenantId) || !kind || !Object.hasOwn(KINDS, kind) || deploymentIds.length === 0) return undefined;
  if (!deploymentIds.every(isUuid)) return undefined;
  return { tenantId: tenantId.toLowerCase(), kind: KINDS[kind]!, deploymentIds: deploymentIds.map((id) => id.toLowerCase()) };
}

/**
 * Changes of one deployment that have not been delivered yet, as one: a deletion or creation that comes later
 * replaces what came before; an update never replaces a creation or deletion not yet delivered.
 */
export function mergeChange(pending: Map<string, ChangeKind>, deploymentId: string, kind: ChangeKind): void {
  if (kind === 'updated' && pending.has(deploymentId)) return;
  // Deleted and re-inserted at its old place would be odd; moved to the end, it is delivered in arrival order.
  pending.delete(deploymentId);
  pending.set(deploymentId, kind);
}
