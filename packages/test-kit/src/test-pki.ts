import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A server certificate issued by a TestPki: PEM text and the files holding it. */
export interface IssuedCertificate {
  cert: string;
  key: string;
  certFile: string;
  keyFile: string;
}

/** A throwaway certificate authority in a temp dir (made with `openssl`); `caFile` is the CA a client trusts. */
export interface TestPki {
  dir: string;
  caFile: string;
  /** A server certificate for the given hosts (an IP or DNS subjectAltName each), signed by the CA. */
  issue(hosts: string[]): IssuedCertificate;
  remove(): void;
}

function openssl(args: string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: 'pipe' });
}

const EC_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
const CA_EXTENSIONS = ['-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign'];

export function createTestPki(prefix = 'test-pki-'): TestPki {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  openssl(['req', '-x509', ...EC_KEY, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=homeops test CA', ...CA_EXTENSIONS], dir);
  let serial = 0;
  return {
    dir,
    caFile: join(dir, 'ca.pem'),
    issue(hosts) {
      serial += 1;
      const name = `server-${serial}`;
      const san = hosts.map((h) => (/^[\d.]+$/.test(h) ? `IP:${h}` : `DNS:${h}`)).join(',');
      writeFileSync(join(dir, `${name}.ext`), `subjectAltName=${san}\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=serverAuth\n`);
      openssl(['req', ...EC_KEY, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${hosts[0] ?? 'homeops test server'}`], dir);
      const sign = ['-CA', 'ca.pem', '-CAkey', 'ca.key', '-set_serial', String(1000 + serial), '-days', '2'];
      openssl(['x509', '-req', '-in', `${name}.csr`, ...sign, '-out', `${name}.pem`, '-extfile', `${name}.ext`], dir);
      const certFile = join(dir, `${name}.pem`);
      const keyFile = join(dir, `${name}.key`);
      return { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8'), certFile, keyFile };
    },
    remove() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
