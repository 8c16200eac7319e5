#!/usr/bin/env node
// Runs the compiled commands without a manifest check; rebuild with `npm run build` after edits.
import {execute} from '@oclif/core/execute'

await execute({development: true, dir: import.meta.url})
