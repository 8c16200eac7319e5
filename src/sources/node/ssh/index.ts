/**
 * Probing nodes over SSH. What other parts of kpx-check use:
 *
 *   - targets: `SshTarget`, `parseTargetSpec` (`[USER@]HOST[:PORT]`), `readInventory` (plain
 *     lists, Ansible INI and YAML);
 *   - the flags and their defaults: `sshFlags`, `sshProbeOptions`, `givenSshFlags`, `sshTargets`;
 *   - running the collector: `runCollectorOverSsh`, which `probeNodesOverSsh` in
 *     services/node-check.ts turns into report nodes.
 */
export {DEFAULT_CONCURRENCY, sshFlags, type SshFlagValues, givenSshFlags, sshProbeOptions, sshTargets} from '../../../cli/ssh-flags.js'
export {type FleetProgress, runCollectorOverSsh, type SshCollectorRun, type SshProbeOptions} from './fleet.js'
export {readInventory} from './inventory.js'
export {type FailureKind, type HostKeyPolicy} from './session.js'
export {checkUser, formatEndpoint, isValidHost, isValidUser, parseTargetSpec, type SshEndpoint, type SshTarget} from './target.js'
