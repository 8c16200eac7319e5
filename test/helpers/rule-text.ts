/** Rule files written by tests and benchmarks. */

/** A node rule of one failing outcome, in YAML, for the file `<name>.yaml`. */
export function ruleText(name: string, {data = {}, message = 'never', when}: {data?: object; message?: string; when: string}): string {
  return [
    `id: node/${name}`,
    'scope: node',
    'severity: warning',
    'title: t',
    'description: d',
    'needs: [kernel.version]',
    `data: ${JSON.stringify(data)}`,
    'outcomes:',
    `  - {status: fail, when: ${JSON.stringify(when)}, message: ${JSON.stringify(message)}}`,
    '  - {status: pass, message: ok}',
    'unknown: {message: unknown}',
    'remediation: [none]',
    'references: [{title: x, url: "https://example.com"}]',
    '',
  ].join('\n')
}

/**
 * node/at-budget, whose CEL costs exactly the budget with a pad of 9,940 characters. The condition:
 * x < y costs 3 (the operator, x, y); the inner exists 1 + 2 (data.ys) + 332 × 3 = 999; the outer
 * 1 + 2 (data.xs) + 1,000 × 999 = 999,003. The message's data.pad.size() costs 1 + 2 and 1 for every
 * 10 characters of the pad: 9,940 characters make 997, and 1,000,000 in all.
 */
export function atBudgetRule(padLength: number): string {
  return ruleText('at-budget', {
    data: {xs: Array.from({length: 1000}, () => 0), ys: Array.from({length: 332}, () => 0), pad: 'x'.repeat(padLength)},
    when: 'data.xs.exists(x, data.ys.exists(y, x < y))',
    message: '{{ data.pad.size() }}',
  })
}
