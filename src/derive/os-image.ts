/**
 * Node.status.nodeInfo.osImage is the os-release PRETTY_NAME as the kubelet saw it. This maps the
 * common ones to os-release ID and VERSION_ID, so the node rules read API nodes as they read bundles.
 */
const OS_IMAGES: Array<[RegExp, string]> = [
  [/^Ubuntu (\d+\.\d+)/, 'ubuntu'],
  [/^Debian GNU\/Linux (\d+)/, 'debian'],
  [/^Amazon Linux (\d+)/, 'amzn'],
  [/^Red Hat Enterprise Linux CoreOS ([\d.]+)/, 'rhcos'],
  [/^Red Hat Enterprise Linux(?: Server)? (\d+(?:\.\d+)?)/, 'rhel'],
  [/^Rocky Linux (\d+(?:\.\d+)?)/, 'rocky'],
  [/^AlmaLinux (\d+(?:\.\d+)?)/, 'almalinux'],
  [/^CentOS Stream (\d+)/, 'centos'],
  [/^CentOS Linux (\d+)/, 'centos'],
  [/^Oracle Linux Server (\d+(?:\.\d+)?)/, 'ol'],
  [/^SUSE Linux Enterprise Server (\d+)(?: SP(\d+))?/, 'sles'],
  [/^openSUSE Leap (\d+\.\d+)/, 'opensuse-leap'],
  [/^Bottlerocket OS ([\d.]+)/, 'bottlerocket'],
  [/^Flatcar Container Linux by Kinvolk ([\d.]+)/, 'flatcar'],
  [/^Fedora CoreOS ([\d.]+)/, 'fedora'],
  [/^Azure Linux (\d+\.\d+)/, 'azurelinux'],
  [/^CBL-Mariner\/Linux/, 'mariner'],
  [/^Container-Optimized OS/, 'cos'],
  [/^Talos \(v?([\d.]+)/, 'talos'],
  [/^Huawei Cloud EulerOS (\d+\.\d+)/, 'hce'],
  [/^EulerOS (\d+\.\d+)/, 'euleros'],
  [/^openEuler (\d+\.\d+)/, 'openEuler'],
  [/^Alibaba Cloud Linux (\d+)/, 'alinux'],
  [/^TencentOS Server (\d+(?:\.\d+)?)/, 'tencentos'],
  [/^Kylin Linux Advanced Server V(\d+)/, 'kylin'],
  [/^Windows/, 'windows'],
]

interface OsFromImage {
  id: string
  versionId?: string
}

export function parseOsImage(osImage: string): OsFromImage | undefined {
  for (const [pattern, id] of OS_IMAGES) {
    const match = pattern.exec(osImage.trim())
    if (!match) continue
    if (id === 'sles') return {id, versionId: match[2] ? `${match[1]}.${match[2]}` : match[1]}
    return match[1] ? {id, versionId: match[1]} : {id}
  }

  return undefined
}
