import {spawn} from 'node:child_process'

import {RUN_JS} from './paths.js'

interface CliResult {
  code: null | number
  stdout: string
  stderr: string
}

/** Runs a program in a child process with exactly `env`, its stdin given `input` and then closed. */
export function runProgram(file: string, args: string[], options: {cwd?: string; env: NodeJS.ProcessEnv; input?: string}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {cwd: options.cwd, env: options.env, stdio: ['pipe', 'pipe', 'pipe']})
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    child.on('error', reject)
    child.on('close', (code) => resolve({code, stdout, stderr}))
    child.stdin.end(options.input ?? '')
  })
}

/** Runs the real CLI (bin/run.js) in a child process, as a user or CI would. */
export function runCli(args: string[], options: {cwd?: string; env?: NodeJS.ProcessEnv; input?: string} = {}): Promise<CliResult> {
  // A wide screen keeps oclif from wrapping error messages mid-sentence.
  const env = {...process.env, NO_COLOR: '1', FORCE_COLOR: '0', OCLIF_COLUMNS: '400', ...options.env}
  return runProgram(process.execPath, [RUN_JS, ...args], {cwd: options.cwd, env, input: options.input})
}
