// Ports on loopback for the servers test/scale/ starts: a free one, and waiting until one accepts.
import { spawn } from 'node:child_process';
import net from 'node:net';

export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export async function waitUntilAccepting(port: number, deadlineMs: number, output: () => string): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => (socket.destroy(), resolve(true)));
      socket.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`nothing accepts connections on ${port}:\n${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export interface ListeningProcess {
  output: () => string;
  /** SIGTERM, and resolves once it has exited. */
  stop(): Promise<void>;
}

/** Starts `command` and resolves once something accepts on `port` (or kills it and rejects after 10 s). */
export async function spawnListening(command: string, args: string[], port: number): Promise<ListeningProcess> {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await waitUntilAccepting(port, 10_000, () => output);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  return {
    output: () => output,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
