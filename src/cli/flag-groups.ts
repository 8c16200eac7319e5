/** The groups a command's --help shows its flags in (each flag's helpGroup), in the order shown; flags of none come first. */
export const CLUSTER_ACCESS = 'Cluster access'
export const NODE_PROBES = 'Node probes'
export const SSH = 'SSH'
export const RULES = 'Rules and gating'
export const OUTPUT = 'Output'
export const CONFIGURATION = 'Configuration'

/** oclif's own group, of --json. */
const GLOBAL = 'GLOBAL'

export const FLAG_GROUPS = [CLUSTER_ACCESS, NODE_PROBES, SSH, RULES, OUTPUT, CONFIGURATION, GLOBAL] as const
