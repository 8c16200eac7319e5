/** The phases of a migration, in the order they run. Rollback steps say how to undo the switch. */
export const PLAN_PHASES = ['prerequisites', 'prepare-cni', 'configure', 'canary', 'rollout', 'verify', 'cleanup', 'rollback'] as const
export type PlanPhase = (typeof PLAN_PHASES)[number]
