/** Every parser of untrusted text that reads one string, for the tests that feed them adversarial input. */
import {kubeProxySettings, parseKubeProxyConfiguration} from '../../src/derive/kube-proxy-config.js'
import {parseOsImage} from '../../src/derive/os-image.js'
import {renderTemplate, templateExpressions} from '../../src/engine/templates.js'
import * as addresses from '../../src/facts/parsers/addresses.js'
import * as collector from '../../src/facts/parsers/collector.js'
import * as iptables from '../../src/facts/parsers/iptables.js'
import * as ipvs from '../../src/facts/parsers/ipvs.js'
import * as kernelConfig from '../../src/facts/parsers/kernel-config.js'
import * as kernel from '../../src/facts/parsers/kernel.js'
import * as kubeProxy from '../../src/facts/parsers/kube-proxy.js'
import * as modules from '../../src/facts/parsers/modules.js'
import * as nftRuleset from '../../src/facts/parsers/nft-ruleset.js'
import * as osRelease from '../../src/facts/parsers/os-release.js'
import * as services from '../../src/facts/parsers/services.js'
import * as sysctl from '../../src/facts/parsers/sysctl.js'
import * as versions from '../../src/facts/parsers/versions.js'
import {readFlags} from '../../src/sources/cluster/read-fields.js'

/** compareVersions documents a plain Error for a side that is not a version (CEL makes it the rule's error). */
const notAVersion = (error: unknown) => error instanceof Error && error.constructor === Error && error.message.startsWith('not a dotted version: ')

/**
 * Every string-taking export of the fact parsers whose name starts with `parse` (a new one is included
 * by itself), the other helpers that read untrusted strings, and the cluster-side parsers; each with
 * the error it documents, if it throws one.
 */
export const TEXT_PARSERS: Array<[string, (text: string) => unknown, ((error: unknown) => boolean)?]> = [
  ...Object.entries({...addresses, ...collector, ...iptables, ...ipvs, ...kernelConfig, ...kernel, ...kubeProxy, ...modules, ...nftRuleset, ...osRelease, ...services, ...sysctl, ...versions})
    .filter(([name, value]) => typeof value === 'function' && name.startsWith('parse'))
    .map(([name, parse]) => [name, parse as (text: string) => unknown] as [string, (text: string) => unknown]),
  ['moduleName', modules.moduleName],
  ['isNodeInterface', addresses.isNodeInterface],
  ['sysctlInt', sysctl.sysctlInt],
  ['compareVersions', (text) => [versions.compareVersions(text, '1.0.1'), versions.compareVersions('5.13', text)], notAVersion],
  ['parseOsImage', parseOsImage],
  ['templateExpressions', templateExpressions],
  ['renderTemplate', (text) => renderTemplate(text, (expression) => expression)],
  ['readFlags', (text) => readFlags(text.split(' '))],
  ['readFlags of one argument', (text) => readFlags([`--config=${text}`, text])],
  ['parseKubeProxyConfiguration', parseKubeProxyConfiguration],
  ['kubeProxySettings', (text) => kubeProxySettings(parseKubeProxyConfiguration(text), readFlags(text.split(' ')), '1.34.1')],
]
