// Exported names that no other module imports (`npm run lint` runs this after ESLint): each is dead code, or a
// name that should not be exported. Reads src/ and test/ as tsconfig.json compiles them, with the compiler's own
// name resolution, so static, type-only, re-exported and dynamically imported names all count as used.
// The default export of a module oclif loads by path counts as used.
import {readFileSync} from 'node:fs'
import {relative} from 'node:path'
import process from 'node:process'
import ts from 'typescript'

const ROOT = process.cwd()
/** What oclif loads by path (package.json: the commands folder, the hooks, the help class), as source paths. */
const {oclif} = JSON.parse(readFileSync('package.json', 'utf8'))
const sourceOf = (built) => built.replace(/^\.\/dist\//, '').replace(/\.js$/, '.ts')
const LOADED_BY_PATH = [sourceOf(oclif.commands) + '/', ...Object.values(oclif.hooks).flat().map((hook) => sourceOf(hook)), ...(oclif.helpClass ? [sourceOf(oclif.helpClass)] : [])]

const config = ts.getParsedCommandLineOfConfigFile('tsconfig.json', {}, {...ts.sys, onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
  throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'))
}})
const program = ts.createProgram(config.fileNames, config.options)
const checker = program.getTypeChecker()
const ours = program.getSourceFiles().filter((file) => !file.isDeclarationFile && !relative(ROOT, file.fileName).startsWith('node_modules'))

const resolved = (symbol) => (symbol && symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol)

/** The files, other than where it is declared, that name each symbol. */
const usedIn = new Map()
function use(symbol, file) {
  const target = resolved(symbol)
  if (!target) return
  const files = usedIn.get(target) ?? new Set()
  files.add(file)
  usedIn.set(target, files)
}

/** Every export of the module a specifier names, as used (`import * as`, `export * from`). */
function useAll(specifier, file) {
  const module = checker.getSymbolAtLocation(specifier)
  if (module) for (const exported of checker.getExportsOfModule(module)) use(exported, file)
}

for (const file of ours) {
  // Static imports and re-exports name what they take; only a module loaded with import() needs every name read.
  const loadsLazily = file.text.includes('import(')
  const visit = (node) => {
    if (ts.isImportDeclaration(node) && node.importClause) {
      const {name, namedBindings} = node.importClause
      if (name) use(checker.getSymbolAtLocation(name), file)
      if (namedBindings && ts.isNamespaceImport(namedBindings)) useAll(node.moduleSpecifier, file)
      if (namedBindings && ts.isNamedImports(namedBindings)) for (const element of namedBindings.elements) use(checker.getSymbolAtLocation(element.name), file)
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier) {
      if (node.exportClause && ts.isNamedExports(node.exportClause)) for (const element of node.exportClause.elements) use(checker.getSymbolAtLocation(element.name), file)
      else useAll(node.moduleSpecifier, file)
    } else if (loadsLazily && ts.isIdentifier(node)) {
      use(checker.getSymbolAtLocation(node), file)
    } else if (loadsLazily && ts.isBindingElement(node) && ts.isObjectBindingPattern(node.parent)) {
      // `const {a} = await import('./x.js')` and `.then(({a}) => …)`: the name is a property of the module.
      const name = node.propertyName ?? node.name
      if (ts.isIdentifier(name)) use(checker.getTypeAtLocation(node.parent).getProperty(name.text), file)
    }

    ts.forEachChild(node, visit)
  }

  visit(file)
}

const unused = []
for (const file of ours) {
  const path = relative(ROOT, file.fileName)
  const module = checker.getSymbolAtLocation(file)
  if (!module) continue
  for (const exported of checker.getExportsOfModule(module)) {
    if (exported.escapedName === 'default' && LOADED_BY_PATH.some((loaded) => path === loaded || (loaded.endsWith('/') && path.startsWith(loaded)))) continue
    const target = resolved(exported)
    const elsewhere = [...(usedIn.get(target) ?? [])].filter((user) => user !== file && !(target.declarations ?? []).some((declaration) => declaration.getSourceFile() === user))
    if (elsewhere.length > 0) continue
    const declaration = exported.declarations?.[0]
    const line = declaration ? file.getLineAndCharacterOfPosition(declaration.getStart()).line + 1 : 1
    unused.push(`${path}:${line} ${exported.name}`)
  }
}

if (unused.length > 0) {
  process.stderr.write(`Exported, and imported by no other module (remove it, or drop the export):\n${unused.join('\n')}\n`)
  process.exitCode = 1
}
