/**
 * A throwaway certificate authority and a server certificate for 127.0.0.1 and localhost, issued
 * with openssl when the tests run (node:crypto cannot issue certificates), so that no private key
 * is committed. Issued once per process: two openssl runs, about 60 ms.
 */
import {execFile} from 'node:child_process'
import {mkdtemp, readFile, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {promisify} from 'node:util'

interface TestTls {
  /** PEM of the CA that signed `cert`: what a client trusts. */
  ca: string
  cert: string
  key: string
}

const execFileAsync = promisify(execFile)

/** P-256 keys: much faster to generate than RSA, and every TLS client accepts them. */
const NEW_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2']

let issued: Promise<TestTls> | undefined

export function testTls(): Promise<TestTls> {
  issued ??= issue()
  return issued
}

async function issue(): Promise<TestTls> {
  const dir = await mkdtemp(join(tmpdir(), 'kpx-test-tls-'))
  try {
    await openssl(dir, [
      'req', '-x509', ...NEW_KEY, '-keyout', 'ca.key', '-out', 'ca.crt', '-subj', '/CN=kpx-check test CA',
      '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign',
    ])
    // `req -x509 -CA` (OpenSSL ≥ 3.0) makes the server key and signs its certificate in one run.
    await openssl(dir, [
      'req', '-x509', ...NEW_KEY, '-keyout', 'server.key', '-out', 'server.crt', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-subj', '/CN=127.0.0.1',
      '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost', '-addext', 'basicConstraints=critical,CA:FALSE', '-addext', 'extendedKeyUsage=serverAuth',
    ])
    const [ca, cert, key] = await Promise.all(['ca.crt', 'server.crt', 'server.key'].map((file) => readFile(join(dir, file), 'utf8')))
    return {ca, cert, key}
  } finally {
    await rm(dir, {recursive: true, force: true})
  }
}

async function openssl(cwd: string, args: string[]): Promise<void> {
  try {
    await execFileAsync('openssl', args, {cwd})
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new Error('The test API server needs the openssl command (OpenSSL ≥ 3.0; Debian/Ubuntu package: openssl)')
    }

    throw error
  }
}
