import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {after, before} from 'node:test'

/**
 * A scratch folder for the test file that calls this at its top level, made before its tests and removed
 * after them; the function returned writes a file there and returns its path.
 */
export function scratchFiles(prefix: string): (name: string, text: string) => string {
  let folder: string
  before(() => {
    folder = mkdtempSync(join(tmpdir(), prefix))
  })
  after(() => rmSync(folder, {recursive: true, force: true}))
  return (name, text) => {
    const path = join(folder, name)
    writeFileSync(path, text)
    return path
  }
}
