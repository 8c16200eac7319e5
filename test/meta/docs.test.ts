/**
 * The references in docs/ are generated (npm run docs): docs/rules.md from rules/, docs/commands.md from the commands
 * (oclif readme; docs.integration.test.ts regenerates it). Here: the rule reference is current, and neither leaves out
 * a rule, a command or a flag.
 */
import assert from 'node:assert/strict'
import {existsSync, readdirSync, readFileSync, statSync} from 'node:fs'
import {dirname, join, relative} from 'node:path'
import {describe, it} from 'node:test'

import {ruleReference} from '../../src/build/rule-reference.js'
import {ruleFiles} from '../../src/services/rule-files.js'
import {loadRules} from '../../src/services/rule-loading.js'
import {BUILTIN_RULES_DIR, PACKAGE_ROOT} from '../../src/util/paths.js'

const read = (file: string) => readFileSync(join(PACKAGE_ROOT, 'docs', file), 'utf8')

describe('docs/rules.md', () => {
  it('is what npm run docs makes of rules/ (run it, and commit the file)', () => {
    assert.equal(read('rules.md'), ruleReference(loadRules([{label: 'rules', path: BUILTIN_RULES_DIR}])), 'docs/rules.md is stale: run npm run docs and commit it')
  })

  it('has a section for every rule file', () => {
    const headings = new Set(read('rules.md').split('\n').filter((line) => line.startsWith('### ')).map((line) => line.slice(4)))
    // A rule's id is its folder and file name (rules/node/kernel-version.yaml is node/kernel-version).
    const ids = ruleFiles(BUILTIN_RULES_DIR).map((file) => relative(BUILTIN_RULES_DIR, file).replace(/\.yaml$/, ''))
    assert.ok(ids.length > 50, `${ids.length} rule files`)
    assert.deepEqual(ids.filter((id) => !headings.has(id)), [])
  })
})

describe('docs/commands.md', () => {
  interface ManifestCommand {
    hidden?: boolean
    flags: Record<string, {hidden?: boolean}>
  }
  const {commands} = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'oclif.manifest.json'), 'utf8')) as {commands: Record<string, ManifestCommand>}
  const text = read('commands.md')

  /** The section of one command: from its heading to the next. */
  function section(id: string): string | undefined {
    // `## \`kpx-check rules lint PATH\``: the command's words, then its arguments in capitals.
    const heading = text.split('\n').find((line) => new RegExp(`^## \`kpx-check ${id.replaceAll(':', ' ')}(?: [A-Z[][^\`]*)?\`$`).test(line))
    if (!heading) return undefined
    const start = text.indexOf(`${heading}\n`)
    const end = text.indexOf('\n## ', start + heading.length)
    return text.slice(start, end === -1 ? undefined : end)
  }

  for (const [id, command] of Object.entries(commands).filter(([, command]) => !command.hidden)) {
    it(`kpx-check ${id.replaceAll(':', ' ')}: its section names each of its flags`, () => {
      const body = section(id)
      assert.ok(body, `no section for kpx-check ${id.replaceAll(':', ' ')} in docs/commands.md: run npm run docs`)
      const missing = Object.entries(command.flags).filter(([name, flag]) => !flag.hidden && !body.includes(`--${name}`)).map(([name]) => `--${name}`)
      assert.deepEqual(missing, [], 'docs/commands.md is stale: run npm run docs and commit it')
    })
  }
})

describe('README.md and docs/', () => {
  const markdownFiles = ['README.md', ...readdirSync(join(PACKAGE_ROOT, 'docs'), {recursive: true, encoding: 'utf8'}).filter((file) => file.endsWith('.md')).map((file) => join('docs', file))]

  it('the README stays a first page: under 12 KB, the rest in docs/', () => {
    const size = statSync(join(PACKAGE_ROOT, 'README.md')).size
    assert.ok(size < 12 * 1024, `README.md is ${size} bytes`)
  })

  /** GitHub's anchor of a heading: lower case, without punctuation but - and _, blanks as -. */
  const anchor = (heading: string) => heading.replace(/^#+ /, '').toLowerCase().replaceAll(/[^\w\- ]/g, '').replaceAll(' ', '-')
  /** A file's text outside its code blocks. */
  const prose = (file: string) => readFileSync(join(PACKAGE_ROOT, file), 'utf8').replaceAll(/^```[\s\S]*?^```/gm, '')

  it('every link between them leads to a file that exists, and to a heading it has', () => {
    const broken = markdownFiles.flatMap((file) =>
      [...prose(file).matchAll(/\]\(([^)\s]+)\)/g)]
        .map((match) => match[1])
        .filter((target) => !/^(?:https?:|mailto:|<)/.test(target))
        .filter((target) => {
          const [path, fragment] = target.split('#', 2)
          const linked = path ? join(dirname(join(PACKAGE_ROOT, file)), path) : join(PACKAGE_ROOT, file)
          if (!existsSync(linked)) return true
          if (!fragment || !linked.endsWith('.md')) return false
          const headings = prose(relative(PACKAGE_ROOT, linked)).split('\n').filter((line) => /^#{1,6} /.test(line))
          return !headings.some((heading) => anchor(heading) === fragment)
        })
        .map((target) => `${file}: ${target}`),
    )
    assert.deepEqual(broken, [])
  })
})
