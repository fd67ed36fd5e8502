// A real Docker distribution registry (Debian's `docker-registry`, 2.8) with token authentication, on a free
// loopback port with its own config and storage in a temporary folder, and skopeo (Debian's package) to push to
// it. For test/scale/. The signing key and its certificate (the registry's rootcertbundle) are made with openssl,
// as docs/operations.md#image-pushes tells an operator to.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort, spawnListening } from './loopback.ts';

const run = promisify(execFile);

export const DOCKER_REGISTRY = '/usr/bin/docker-registry';
export const SKOPEO = ['/usr/bin/skopeo', '/usr/local/bin/skopeo'].find((file) => existsSync(file));

/** An EC P-256 key and a self-signed certificate of it, as PEM, written by openssl into `dir`. */
export async function signingKeyPair(dir: string, name = 'registry-tokens'): Promise<{ keyPem: string; certPem: string; certFile: string }> {
  const keyFile = path.join(dir, `${name}.key`);
  const certFile = path.join(dir, `${name}.crt`);
  await run('openssl', ['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', keyFile]);
  await run('openssl', ['req', '-new', '-x509', '-key', keyFile, '-subj', `/CN=${name}`, '-days', '3650', '-out', certFile]);
  return { keyPem: await fs.readFile(keyFile, 'utf8'), certPem: await fs.readFile(certFile, 'utf8'), certFile };
}

export interface RunningRegistry {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** `127.0.0.1:<port>`, as image references name it. */
  host: string;
  output: () => string;
  stop(): Promise<void>;
}

export interface RegistryOptions {
  port: number;
  /** The token server's address (this service's /registry/token). */
  realm: string;
  service: string;
  issuer: string;
  /** The certificate of the service's signing key. */
  certFile: string;
  dir: string;
}

/** The config.yml docs/operations.md shows, on loopback, storing under `dir`. */
export function registryConfig({ port, realm, service, issuer, certFile, dir }: RegistryOptions): string {
  return [
    'version: 0.1',
    'log:',
    '  level: info',
    'storage:',
    '  filesystem:',
    `    rootdirectory: ${path.join(dir, 'storage')}`,
    'http:',
    `  addr: 127.0.0.1:${port}`,
    'auth:',
    '  token:',
    `    realm: ${realm}`,
    `    service: ${service}`,
    `    issuer: ${issuer}`,
    `    rootcertbundle: ${certFile}`,
    '',
  ].join('\n');
}

export async function startDockerRegistry(options: Omit<RegistryOptions, 'dir'> & { dir?: string }): Promise<RunningRegistry> {
  if (!existsSync(DOCKER_REGISTRY)) throw new Error('docker-registry is not installed (Debian: apt-get install docker-registry)');
  const dir = options.dir ?? await fs.mkdtemp(path.join(os.tmpdir(), 'dmg-registry-'));
  const config = path.join(dir, 'config.yml');
  await fs.writeFile(config, registryConfig({ ...options, dir }));
  const server = await spawnListening(DOCKER_REGISTRY, ['serve', config], options.port);
  return {
    url: `http://127.0.0.1:${options.port}`,
    host: `127.0.0.1:${options.port}`,
    output: server.output,
    async stop() {
      await server.stop();
      if (!options.dir) await fs.rm(dir, { recursive: true, force: true });
    },
  };
}

export { freePort };

/** What skopeo said and whether it succeeded. */
export interface SkopeoResult {
  ok: boolean;
  output: string;
}

/**
 * `skopeo copy` of the OCI layout at `layout` to `docker://<destination>`, logged in as the CLI logs in
 * (`oauth2accesstoken:<password>`); the pushed manifest's digest is read from --digestfile.
 */
export async function skopeoPush(layout: string, destination: string, password: string, dir: string): Promise<SkopeoResult & { digest?: string }> {
  if (!SKOPEO) throw new Error('skopeo is not installed (Debian: apt-get install skopeo)');
  const policy = path.join(dir, 'policy.json');
  await fs.writeFile(policy, JSON.stringify({ default: [{ type: 'insecureAcceptAnything' }] }));
  const digestFile = path.join(dir, `digest-${Date.now()}-${Math.random().toString(36).slice(2)}`);
  try {
    const { stdout, stderr } = await run(SKOPEO, [
      '--policy', policy, 'copy', '--retry-times', '0', '--dest-tls-verify=false', '--dest-creds', `oauth2accesstoken:${password}`, '--digestfile', digestFile,
      `oci:${layout}:latest`, `docker://${destination}`,
    ], { timeout: 60_000, env: { ...process.env, HOME: dir } });
    return { ok: true, output: stdout + stderr, digest: (await fs.readFile(digestFile, 'utf8')).trim() };
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; message: string };
    return { ok: false, output: `${failed.stdout ?? ''}${failed.stderr ?? failed.message}` };
  }
}
