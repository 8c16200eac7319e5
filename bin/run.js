#!/usr/bin/env node
import {execute} from '@oclif/core'
import process from 'node:process'

// A reader that goes away (`| head`) ends the output, not the verdict: keep the exit code, print no stack.
// Any other failure to write stdout (a full disk) is said in one line, exit 2.
process.stdout.on('error', (error) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0)
  process.stderr.write(`kpx-check: cannot write to standard output: ${error.message}\n`)
  process.exit(2)
})

await execute({dir: import.meta.url})
