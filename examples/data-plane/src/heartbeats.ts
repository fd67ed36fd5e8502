// A listener's data plane says it is alive while idle (the listener's `online`, `lastContactAt` and `version`):
// one heartbeat at the start, then every HEARTBEAT_MS. It asks for no work: work comes by wake-ups.ts. A key
// bound to no listener has no listener to keep online: its first heartbeat is refused, and none follows.
import { GatewayError, type GatewayClient, type Settings } from './gateway.ts';
import { REPORT_LISTENER_HEARTBEAT, type ReportListenerHeartbeatResult } from './operations.ts';

/** The gateway counts a listener online while it heard from it within 60 s: every 20 s leaves room for two misses. */
const HEARTBEAT_MS = 20_000;

/** The listener the key is bound to (null: none), once the first heartbeat is answered; then beats until `stop`. */
export async function startHeartbeats(client: GatewayClient, settings: Settings, stop: AbortSignal, log: (line: string) => void): Promise<string | null> {
  const beat = () => client.request<ReportListenerHeartbeatResult>(REPORT_LISTENER_HEARTBEAT, { input: { version: settings.version } });
  let listenerId: string;
  try {
    ({ reportListenerHeartbeat: { listenerId } } = await beat());
  } catch (error) {
    if (error instanceof GatewayError && error.codes.includes('FORBIDDEN')) return null;
    throw error;
  }
  const timer = setInterval(() => {
    beat().catch((error: unknown) => log(`heartbeat failed (${error instanceof Error ? error.message : String(error)}); the next one is in ${HEARTBEAT_MS / 1000} s`));
  }, HEARTBEAT_MS);
  timer.unref();
  stop.addEventListener('abort', () => clearInterval(timer), { once: true });
  return listenerId;
}
