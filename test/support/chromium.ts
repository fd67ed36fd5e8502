// The system Chromium (Debian's `chromium` package), driven by playwright-core, for looking at the service's
// pages as a person does. Never a browser downloaded by an npm package: none can be fetched on these machines.
import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export const chromiumFound = () => existsSync(CHROMIUM_PATH);

/** Headless, and quiet: nothing of Chromium's own (updates, sync, field trials) goes out on the network. */
export function launchChromium(): Promise<Browser> {
  // playwright-core gives every launch a fresh, temporary profile (--user-data-dir) and removes it on close.
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

const LOCAL_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** Whether loading `url` would leave this machine (data: and blob: URLs never do). */
export function leavesTheMachine(url: string): boolean {
  const { protocol, hostname } = new URL(url);
  if (protocol === 'data:' || protocol === 'blob:' || protocol === 'about:') return false;
  return !LOCAL_HOSTS.has(hostname);
}

export interface RequestLog {
  /** Every URL the pages asked for. */
  requested: string[];
  /** Those that would have left the machine: refused, as on a machine without internet. */
  offHost: string[];
  /** Console errors and uncaught exceptions (a refused load or a Content-Security-Policy violation shows here). */
  errors: string[];
}

/** Watches every request of every page of `context`, from before the first one. */
export async function watchRequests(context: BrowserContext): Promise<RequestLog> {
  const log: RequestLog = { requested: [], offHost: [], errors: [] };
  await context.route('**/*', async (route) => {
    const url = route.request().url();
    log.requested.push(url);
    if (leavesTheMachine(url)) {
      log.offHost.push(url);
      return route.abort('internetdisconnected');
    }
    return route.continue();
  });
  context.on('page', (page) => {
    page.on('console', (message) => { if (message.type() === 'error') log.errors.push(message.text()); });
    page.on('pageerror', (error) => log.errors.push(error.message));
  });
  return log;
}
