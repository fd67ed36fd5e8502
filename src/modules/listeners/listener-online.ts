// Whether a listener is online (docs/decisions.md#listeners): a data plane bound to it called within the last
// ONLINE_WINDOW_SECONDS. Data planes call at least every HEARTBEAT_SECONDS while idle (examples/data-plane does),
// so one missed heartbeat does not make a listener look offline, two or three do.
export const HEARTBEAT_SECONDS = 20;
export const ONLINE_WINDOW_SECONDS = 60;

export const isOnline = (lastContactAt: Date | null, now = new Date()): boolean =>
  lastContactAt !== null && now.getTime() - lastContactAt.getTime() <= ONLINE_WINDOW_SECONDS * 1000;
