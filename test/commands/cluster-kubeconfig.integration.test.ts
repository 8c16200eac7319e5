/**
 * Broken and missing kubeconfigs, through the real CLI: each is exit 2 with one message that names the
 * file and the field (or every place looked at), never a library's words or a stack trace. The
 * environment is pinned: HOME is a temporary folder, KUBECONFIG and the in-cluster variables are unset.
 */
import assert from 'node:assert/strict'
import {generateKeyPairSync} from 'node:crypto'
import {mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {after, before, describe, it} from 'node:test'
import {stringify as toYaml} from 'yaml'

import type {Report} from '../../src/contract/report.js'
import {testTls} from '../helpers/apiserver-tls.js'
import {type ApiServer, startApiServer, writeContexts, writeKubeconfig} from '../helpers/apiserver.js'
import {runCli} from '../helpers/cli.js'

let home: string
let dir: string
const env = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  HOME: home,
  KUBECONFIG: undefined,
  KUBERNETES_SERVICE_HOST: undefined,
  KUBERNETES_SERVICE_PORT: undefined,
  ...extra,
})

before(() => {
  home = mkdtempSync(join(tmpdir(), 'kpx-kubeconfig-home-'))
  dir = mkdtempSync(join(tmpdir(), 'kpx-kubeconfig-'))
})
after(() => {
  rmSync(home, {recursive: true, force: true})
  rmSync(dir, {recursive: true, force: true})
})

const b64 = (text: string) => Buffer.from(text).toString('base64')

/** A kubeconfig with one context "c" of cluster "c" and user "u", the fields given merged in. */
function kubeconfig(name: string, parts: {cluster?: object; user?: object; context?: object; top?: object} = {}): string {
  const file = join(dir, name)
  writeFileSync(
    file,
    toYaml({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{name: 'c', cluster: {server: 'https://127.0.0.1:1', ...parts.cluster}}],
      users: [{name: 'u', user: {token: 't', ...parts.user}}],
      contexts: [{name: 'c', context: {cluster: 'c', user: 'u', ...parts.context}}],
      'current-context': 'c',
      ...parts.top,
    }),
  )
  return file
}

/** Runs `cluster --json` and expects exit 2 with exactly this usage error, nothing on stderr. */
async function expectUsageError(args: string[], message: string, suggestions?: string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<void> {
  const {code, stdout, stderr} = await runCli(['cluster', ...args, '--json'], {env: env(extraEnv)})
  assert.equal(code, 2, stdout)
  assert.equal(stderr, '')
  const {error} = JSON.parse(stdout) as {error: {exitCode: number; message: string; name: string; suggestions: string[]}}
  assert.equal(error.name, 'UsageError')
  assert.equal(error.message, message)
  if (suggestions) assert.deepEqual(error.suggestions, suggestions)
}

describe('kpx-check cluster: where the kubeconfig is looked for', () => {
  it('no kubeconfig anywhere: every place kubectl looks is listed, with what was there', async () => {
    await expectUsageError(
      [],
      [
        'no kubeconfig to use. kpx-check looked where kubectl looks:',
        '  --kubeconfig: not given',
        '  KUBECONFIG: not set',
        `  ~/.kube/config (${home}/.kube/config): no such file`,
        '  in-cluster service account: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set (not in a pod)',
      ].join('\n'),
      ['Pass --kubeconfig FILE or set KUBECONFIG, as for kubectl; in a pod, give it a service account.'],
    )
  })

  it('KUBECONFIG files that are missing or empty are each named; ~/.kube/config is then not read', async () => {
    const empty = join(dir, 'empty')
    writeFileSync(empty, '')
    await expectUsageError(
      [],
      [
        'no kubeconfig to use. kpx-check looked where kubectl looks:',
        '  --kubeconfig: not given',
        `  KUBECONFIG ${dir}/missing: no such file`,
        `  KUBECONFIG ${empty}: empty`,
        '  (~/.kube/config is not read when KUBECONFIG is set)',
        '  in-cluster service account: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set (not in a pod)',
      ].join('\n'),
      undefined,
      {KUBECONFIG: `${dir}/missing:${empty}`},
    )
  })

  it('an empty --kubeconfig file is an empty kubeconfig, as for kubectl', async () => {
    const empty = join(dir, 'empty-explicit')
    writeFileSync(empty, '# nothing here\n')
    await expectUsageError(
      ['--kubeconfig', empty],
      [
        'no kubeconfig to use. kpx-check looked where kubectl looks:',
        `  --kubeconfig ${empty}: empty`,
        '  (KUBECONFIG and ~/.kube/config are not read when --kubeconfig is given)',
        '  in-cluster service account: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set (not in a pod)',
      ].join('\n'),
    )
  })

  it('a --kubeconfig file that does not exist is an error (KUBECONFIG files may be missing; that one may not)', async () => {
    await expectUsageError(['--kubeconfig', join(dir, 'nope')], `--kubeconfig ${dir}/nope: no such file`)
  })

  describe('against the test API server', () => {
    let server: ApiServer
    before(async () => (server = await startApiServer({scenario: 'aks'})))
    after(() => server.close())

    it('a KUBECONFIG list whose first file is missing uses the next one, as kubectl does', async () => {
      const good = writeKubeconfig(mkdtempSync(join(dir, 'good-')), server)
      const {code, stdout, stderr} = await runCli(['cluster', '--json'], {env: env({KUBECONFIG: `${dir}/not-there:${good}`})})
      assert.equal(code, 5, stderr)
      const report = JSON.parse(stdout) as Report
      assert.equal(report.cluster?.context, 'kpx-test')
      assert.match(report.cluster?.kubernetesVersion ?? '', /^1\.33\./)
    })

    it('~/.kube/config, when neither --kubeconfig nor KUBECONFIG is given', async () => {
      mkdirSync(join(home, '.kube'), {recursive: true})
      renameSync(writeKubeconfig(join(home, '.kube'), server), join(home, '.kube', 'config'))
      try {
        const {code, stdout} = await runCli(['cluster', '--json'], {env: env()})
        assert.equal(code, 5)
        assert.equal((JSON.parse(stdout) as Report).cluster?.context, 'kpx-test')
      } finally {
        rmSync(join(home, '.kube'), {recursive: true, force: true})
      }
    })
  })
})

describe('kpx-check cluster: a kubeconfig that cannot be used', () => {
  const fixLine = 'Point --kubeconfig or KUBECONFIG at a kubeconfig file (kubectl config view shows one).'
  const entryLine = 'Fix that entry (kubectl config view --raw --minify shows it), or pick another context with --context.'

  it('not YAML: the file, line and column', async () => {
    const file = join(dir, 'not-yaml')
    writeFileSync(file, 'clusters:\n- name: c\n  cluster: server: https://x\n')
    await expectUsageError(['--kubeconfig', file], `kubeconfig ${file}:3:12 is not YAML: Nested mappings are not allowed in compact mappings`, [fixLine])
  })

  it('YAML that is not a kubeconfig', async () => {
    const list = join(dir, 'a-list')
    writeFileSync(list, '- a\n- b\n')
    await expectUsageError(['--kubeconfig', list], `kubeconfig ${list} is not a valid kubeconfig: expected a mapping with clusters, users and contexts, found a list`, [fixLine])
    const clusters = join(dir, 'clusters-string')
    writeFileSync(clusters, 'clusters: prod\n')
    await expectUsageError(['--kubeconfig', clusters], `kubeconfig ${clusters} is not a valid kubeconfig: clusters is a string, not a list`)
  })

  it('a --context that is not there: the contexts there are', async () => {
    const file = kubeconfig('contexts')
    await expectUsageError(['--kubeconfig', file, '--context', 'prod'], `--context prod: no such context in ${file}`, ['Contexts there: c.'])
  })

  it('a current-context that names no context', async () => {
    const file = kubeconfig('current', {top: {'current-context': 'gone'}})
    await expectUsageError(['--kubeconfig', file], `current-context "gone" (set in ${file}): no such context in ${file}`, ['Contexts there: c.'])
  })

  it('no current-context and no --context', async () => {
    const file = kubeconfig('no-current', {top: {'current-context': ''}})
    await expectUsageError(['--kubeconfig', file], `no context chosen: ${file} set no current-context`, ['Pick one with --context NAME. Contexts there: c.'])
  })

  it("a context whose cluster or user is missing", async () => {
    const noCluster = kubeconfig('no-cluster', {context: {cluster: 'gone'}})
    await expectUsageError(['--kubeconfig', noCluster], `kubeconfig ${noCluster}: context "c" names cluster "gone", which is not in ${noCluster}`, ['Clusters there: c.'])
    const noUser = kubeconfig('no-user', {context: {user: ''}})
    await expectUsageError(['--kubeconfig', noUser], `kubeconfig ${noUser}: context "c" names no user`, ['Users there: u.'])
  })

  it('a server that is not https', async () => {
    const file = kubeconfig('http', {cluster: {server: 'http://localhost:8080'}})
    await expectUsageError(['--kubeconfig', file], `kubeconfig ${file}: cluster "c" (of context "c"): server "http://localhost:8080" is not an https:// URL; kpx-check reads the API over HTTPS only`)
  })

  it('certificate and key files that cannot be read: the file is named', async () => {
    const file = kubeconfig('files', {user: {token: undefined, 'client-certificate': 'missing.crt', 'client-key': 'missing.key'}})
    await expectUsageError(['--kubeconfig', file], `kubeconfig ${file}: user "u" (of context "c"): client-certificate ${dir}/missing.crt: no such file`, [entryLine])
    const ca = kubeconfig('ca-folder', {cluster: {'certificate-authority': dir}})
    await expectUsageError(['--kubeconfig', ca], `kubeconfig ${ca}: cluster "c" (of context "c"): certificate-authority ${dir}: not a regular file (a folder); kpx-check reads only files`)
  })

  it('*-data that is not base64, or not PEM once decoded: the field and the context are named', async () => {
    const tls = await testTls()
    const key = generateKeyPairSync('ec', {namedCurve: 'P-256'}).privateKey.export({type: 'pkcs8', format: 'pem'})
    const cases: Array<[string, object, string]> = [
      ['key-not-base64', {user: {'client-certificate-data': b64(tls.cert), 'client-key-data': 'not base64!'}}, 'user "u" (of context "c"): client-key-data is not base64'],
      ['key-not-pem', {user: {'client-certificate-data': b64(tls.cert), 'client-key-data': b64('garbage')}}, 'user "u" (of context "c"): client-key-data is not a PEM private key once decoded from base64'],
      ['cert-not-pem', {user: {'client-certificate-data': b64(tls.key), 'client-key-data': b64(tls.key)}}, 'user "u" (of context "c"): client-certificate-data is not a PEM certificate once decoded from base64'],
      ['ca-not-pem', {cluster: {'certificate-authority-data': b64('-----BEGIN CERTIFICATE-----\nnope\n-----END CERTIFICATE-----\n')}}, 'cluster "c" (of context "c"): certificate-authority-data is not a PEM certificate once decoded from base64'],
      ['not-a-pair', {user: {'client-certificate-data': b64(tls.cert), 'client-key-data': b64(String(key))}}, 'user "u" (of context "c"): the client certificate and the client key do not belong together'],
      ['cert-without-key', {user: {'client-certificate-data': b64(tls.cert)}}, 'user "u" (of context "c"): has a client certificate but no client-key or client-key-data'],
    ]
    for (const [name, parts, message] of cases) {
      const file = kubeconfig(name, parts)
      await expectUsageError(['--kubeconfig', file], `kubeconfig ${file}: ${message}`, [entryLine])
    }
  })

  it('shown to a person: the message, and no stack trace', async () => {
    const file = kubeconfig('shown', {user: {'client-certificate-data': b64('x'), 'client-key-data': 'bm90IGEga2V5'}})
    const {code, stderr} = await runCli(['cluster', '--kubeconfig', file], {env: env()})
    assert.equal(code, 2)
    // Said once: on the progress line of the step that failed, not again as an `Error:` after it.
    const message = `kubeconfig ${file}: user "u" (of context "c"): client-certificate-data is not a PEM certificate once decoded from base64`
    assert.equal(stderr.split(message).length - 1, 1, stderr)
    assert.doesNotMatch(stderr, /^Error:/m)
    assert.doesNotMatch(stderr, /^\s+at /m)
    assert.doesNotMatch(stderr, /OSSL|PEM routines/)
  })
})

describe('kpx-check cluster: credentials in the server URL', () => {
  it('https://user:password@host is used, and shown nowhere: stderr, the report, the snapshot file, a fleet\'s JSON and text', async () => {
    const server = await startApiServer({scenario: 'kubeadm-calico'})
    try {
      const secret = (url: string) => url.replace('https://', 'https://admin:s3cretPassw0rd@')
      const folder = mkdtempSync(join(dir, 'url-credentials-'))
      // The second context's server does not answer: its error message names the server.
      const kubeconfig = writeContexts(folder, [
        {name: 'reached', server: {url: secret(server.url), ca: server.ca}, token: server.token},
        {name: 'gone', server: {url: secret('https://127.0.0.1:1'), ca: server.ca}, token: 'x'},
      ])
      const snapshot = join(folder, 'snapshot.json')
      const runs = [
        await runCli(['cluster', '--kubeconfig', kubeconfig, '--json'], {env: env()}),
        await runCli(['cluster', '--kubeconfig', kubeconfig], {env: env()}),
        await runCli(['snapshot', '--kubeconfig', kubeconfig, '-o', snapshot], {env: env()}),
        await runCli(['cluster', '--kubeconfig', kubeconfig, '--all-contexts', '--json'], {env: env()}),
        await runCli(['cluster', '--kubeconfig', kubeconfig, '--all-contexts'], {env: env()}),
        await runCli(['cluster', '--kubeconfig', kubeconfig, '--context', 'gone'], {env: env()}),
      ]
      assert.notEqual(runs[0].code, 2, runs[0].stdout)
      assert.match(runs[0].stderr + runs[1].stderr, /127\.0\.0\.1/, 'the server is still named')
      const shown = [...runs.flatMap(({stdout, stderr}) => [stdout, stderr]), readFileSync(snapshot, 'utf8')].join('\n')
      assert.match(shown, /https:\/\/127\.0\.0\.1:1\b/, 'the unreachable server is named, without its credentials')
      for (const credential of ['s3cretPassw0rd', 'admin:']) assert.ok(!shown.includes(credential), `${credential} is shown`)
    } finally {
      await server.close()
    }
  })
})
