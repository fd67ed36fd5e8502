// Connection cursors name a position in the listing order (created_at desc, id desc), not an index, so a
// page boundary stays put when deployments are added or removed elsewhere in the list.
import type { FilterQuery } from '@mikro-orm/postgresql';
import { isUuid } from '../common/uuid.ts';
import type { Deployment } from './deployment.entity.ts';

export interface DeploymentPosition {
  createdAt: Date;
  id: string;
}

const PREFIX = 'deployment:v1:';

export function encodeDeploymentCursor({ createdAt, id }: DeploymentPosition): string {
  return Buffer.from(`${PREFIX}${createdAt.toISOString()}|${id}`, 'utf8').toString('base64url');
}

/** The position a cursor names, or undefined when it is not one of ours. */
export function decodeDeploymentCursor(cursor: string): DeploymentPosition | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!text.startsWith(PREFIX)) return undefined;
  const [iso, id] = text.slice(PREFIX.length).split('|');
  const createdAt = new Date(iso ?? '');
  if (!id || !isUuid(id) || Number.isNaN(createdAt.getTime()) || createdAt.toISOString() !== iso) return undefined;
  return { createdAt, id: id.toLowerCase() };
}

/** Deployments listed after `position` (older, or as old with a smaller id). */
export const listedAfter = ({ createdAt, id }: DeploymentPosition): FilterQuery<Deployment> =>
  ({ $or: [{ createdAt: { $lt: createdAt } }, { createdAt, id: { $lt: id } }] });

/** Deployments listed before `position` (newer, or as new with a larger id). */
export const listedBefore = ({ createdAt, id }: DeploymentPosition): FilterQuery<Deployment> =>
  ({ $or: [{ createdAt: { $gt: createdAt } }, { createdAt, id: { $gt: id } }] });

/** The cursor's own deployment and those listed before it. */
export const listedAtOrBefore = ({ createdAt, id }: DeploymentPosition): FilterQuery<Deployment> =>
  ({ $or: [{ createdAt: { $gt: createdAt } }, { createdAt, id: { $gte: id } }] });

/** The cursor's own deployment and those listed after it. */
export const listedAtOrAfter = ({ createdAt, id }: DeploymentPosition): FilterQuery<Deployment> =>
  ({ $or: [{ createdAt: { $lt: createdAt } }, { createdAt, id: { $lte: id } }] });
