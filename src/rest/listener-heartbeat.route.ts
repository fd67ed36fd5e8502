// POST /v2/data-plane/heartbeat (ours, docs/rest.md#listeners): a listener's data plane is alive, at a version.
// Runs the `reportListenerHeartbeat` mutation (modules/listeners/listener-data-plane.graphql.ts).
import { checkHeartbeat } from '../modules/listeners/listener-request-schema.ts';
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
  document: `mutation DataPlaneHeartbeat($input: ReportListenerHeartbeatInput!) {
  reportListenerHeartbeat(input: $input) { listenerId version lastContactAt online }
}`,
  variables: ({ body }) => ({ input: { version: (body as { version?: string | null }).version ?? null } }),
  respond: (data) => {
    const contact = data.reportListenerHeartbeat;
    return { status: 200, body: { listener_id: contact.listenerId, version: contact.version, last_contact_at: contact.lastContactAt, online: contact.online } };
  },
  responseSchema: dataPlaneResponseSchema('Heartbeat'),
};
