// POST /v2/data-plane/heartbeat (ours, docs/rest.md#listeners): a listener's data plane is alive, at a version.
// Runs the handler of the `reportListenerHeartbeat` mutation (modules/listeners/listener-data-plane.graphql.ts)
// with the body as the door validated it, and answers from the contact it recorded.
import { checkHeartbeat } from '../modules/listeners/listener-request-schema.ts';
import { reportHeartbeat } from '../modules/listeners/listener-data-plane.graphql.ts';
import { isOnline } from '../modules/listeners/listener-online.ts';
import { isoDateTime } from '../graphql/iso-date-time.ts';
import { dataPlaneResponseSchema } from './response-schemas.ts';
import type { RestRoute } from './rest-route.ts';

export const listenerHeartbeatRoute: RestRoute = {
  path: '/v2/data-plane/heartbeat',
  method: 'POST',
  dataPlane: true,
  operationId: 'report_heartbeat_v2_data_plane_heartbeat_post',
  summary: 'Report Heartbeat',
  description: 'The listener the key is bound to (`apikey create --reconcile --listener <id>`) is alive: its `last_contact_at` moves on (at most every 5 seconds), '
    + 'and a `version` sent becomes its version. Send it every 20 seconds while idle: a listener heard from within 60 seconds is online. 403 for a key bound to no listener.',
  tag: 'data plane',
  parameters: [],
  body: checkHeartbeat,
  bodySchema: 'Heartbeat',
  bodyExample: { version: '1.4.0' },
  operationName: 'DataPlaneHeartbeat',
  write: (ctx, { body }) => reportHeartbeat(ctx, (body as { version?: string | null }).version ?? null),
  respond: (_data, _call, contact) => ({
    status: 200, body: { listener_id: contact.listenerId, version: contact.version, last_contact_at: isoDateTime(contact.lastContactAt), online: isOnline(contact.lastContactAt) },
  }),
  responseSchema: dataPlaneResponseSchema('Heartbeat'),
};
