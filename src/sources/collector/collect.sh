#!/bin/sh
# kpx-check node facts collector: prints a node facts bundle (format v1) on stdout.
#
#   # kpx-check node facts v1
#   ### <section>
#   <raw output of a command or file>
#   ...
#   ### unavailable
#   <section> <reason> [detail]        (one line per section that could not be read)
#   ### end                            (the bundle is whole: a reader treats one without it as cut short)
#
# Every section header is always printed, in a fixed order; a section listed in `unavailable`
# has an empty (or partial) body that must not be trusted. A body line that would start with
# "### " is printed with one leading space so it cannot be taken for a header.
#
# Rules this script keeps:
#   * POSIX sh only (runs under dash and busybox ash); no Node.js, no bash.
#   * Read-only: it never loads modules, changes sysctls or rules. The only kernel request that
#     carries a ruleset is `nft -c` (check-only, never committed) on a scratch table. Like every
#     nftables request, it lets the kernel autoload the nf_tables expression modules it names.
#   * Each external command is bounded by `timeout` (KPX_TIMEOUT seconds, default 5) when a
#     timeout utility exists, else by a watchdog when sleep does; a command that timed out once is
#     not run again.
#   * No credentials: process arguments are filtered to a few proxy flags, and process
#     environments are only searched for one variable, never printed.
#   * Takes one optional argument, the word `kube-proxy-pod` or `probe-pod` (any other is ignored),
#     and builds no command from input.
#   * stderr of the commands it runs never reaches the bundle (it is only classified).
#   * Needs little besides sh: without sed, tr, cut, tail, uname, mkdir or mktemp it reads /proc and
#     uses grep, cat and wc instead, so it runs in the upstream kube-proxy image (dash, cat, grep, wc,
#     rm, nft, iptables, kmod, and no sed, awk, tr, cut, uname, timeout, curl or ip).
#
# `kube-proxy-pod`: it runs inside a kube-proxy container (exec into the pod), which shares the
# node's network and UTS namespaces and kernel but not its PID namespace or its /etc: the host's
# os-release and services are then `unavailable` (not the container's own), a kube-proxy process it
# finds runs in a container, and PATH is left as the image sets it.
#
# `probe-pod`: it runs in a probe pod kpx-check made on kube-proxy's image (`--node-probe pod`), with
# the host's network and PID namespaces (its /proc is the host's processes), privileged, and the host's
# files mounted read-only: /etc/os-release at /host/os-release, /etc at /host/etc, /boot and
# /lib/modules at their own paths. What differs from the host: the nft on PATH is the image's (the
# one kube-proxy runs), and there is no systemctl. KPX_HOST_ROOT names another folder than /host (the
# tests' stand-in for the mounts); it is only ever a prefix of files read.
#
# Layout (as Docker's contrib/check-config.sh): settings, then the helpers, then one function per
# section, then the run: set-up, and the sections called in bundle order (the list at the end is the
# order of format v1).
#
# shellcheck shell=sh

COLLECTOR_VERSION=0.1.0

WHERE=host
case ${1-} in
  kube-proxy-pod | probe-pod) WHERE=$1 ;;
esac
HOST_ROOT=${KPX_HOST_ROOT:-/host}

# sbin directories are often missing from a non-root user's PATH; append (never prepend) them.
if [ "$WHERE" = host ]; then
  PATH="${PATH:+$PATH:}/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
  export PATH
fi
LC_ALL=C
export LC_ALL
# kube-proxy's endpoints are on 127.0.0.1: never send them through a proxy.
unset http_proxy HTTP_PROXY https_proxy HTTPS_PROXY all_proxy ALL_PROXY
umask 077

NL='
'

# The scratch files (see "Set-up"), each S<name>.
SCRATCH_FILES='out err tmp probe.nft argv err2'

# =============================================================================================
# Helpers

have() {
  command -v "$1" >/dev/null 2>&1
}

# ---------------------------------------------------------------------------------------------
# Time bound: TO seconds (KPX_TIMEOUT), applied the way TSTYLE says (see "Set-up").

# watched SECS CMD ARGS... : run CMD in the background and kill it after SECS unless it ended
# first; the watchdog then removes its own sleep, so nothing of it outlives the command.
# The watchdog is told to stop with ALRM, which the collector does not trap: before the watchdog has
# its own trap, ALRM ends it at once (TERM would be held by the collector's inherited trap, and lost).
# Its sleep is stopped with KILL, which no handler inherited between fork and exec can hold either.
watched() {
  _secs=$1
  shift
  "$@" &
  _cmd=$!
  (
    _stop=
    _nap=
    trap '_stop=1; [ -z "$_nap" ] || kill -s KILL "$_nap" 2>/dev/null' ALRM
    sleep "$_secs" &
    _nap=$!
    [ -z "$_stop" ] || kill -s KILL "$_nap" 2>/dev/null
    wait "$_nap"
    [ -n "$_stop" ] || kill -s KILL "$_cmd" 2>/dev/null
  ) >/dev/null 2>&1 </dev/null &
  _dog=$!
  wait "$_cmd"
  _rc=$?
  kill -s ALRM "$_dog" 2>/dev/null
  wait "$_dog" 2>/dev/null
  return "$_rc"
}

# bounded SECS CMD ARGS... : run CMD with the time bound.
bounded() {
  _secs=$1
  shift
  case $TSTYLE in
    kill) timeout -k 2 "$_secs" "$@" ;;
    plain) timeout "$_secs" "$@" ;;
    old) timeout -t "$_secs" "$@" ;;
    watchdog) watched "$_secs" "$@" ;;
    *) "$@" ;;
  esac
}

# ---------------------------------------------------------------------------------------------
# Scratch space: command output goes to files, never through pipes, so a timed-out command's
# orphaned children cannot keep the collector waiting. A folder of its own; without mktemp and
# mkdir (the kube-proxy image), files named after the collector's pid, each created anew (noclobber).
# S is what a scratch file's name starts with.

# scratch_files PREFIX : creates every scratch file as PREFIX<name>, none of which may exist yet;
# when one does, removes the ones it made and fails.
scratch_files() {
  _made=
  for _name in $SCRATCH_FILES; do
    if ! (set -C && : >"$1$_name") 2>/dev/null; then
      for _undo in $_made; do
        rm -f "$1$_undo"
      done
      return 1
    fi
    _made="$_made $_name"
  done
}

# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
  if [ -n "$SCRATCH" ]; then
    rm -rf "$SCRATCH"
  else
    for _name in $SCRATCH_FILES; do
      rm -f "$S$_name"
    done
  fi
}

# ---------------------------------------------------------------------------------------------
# Running commands and reporting

HUNG=' '
RC=0

# run OUTFILE ERRFILE CMD ARGS... : stdout to OUTFILE, stderr to ERRFILE (the same file: both
# streams into it), stdin from /dev/null, bounded by BOUND (default TO) seconds. Sets RC
# (124 = timed out). Never fails itself.
run() {
  _out=$1
  _err=$2
  shift 2
  case $HUNG in
    *" $1 "*)
      : >"$_out"
      printf 'skipped: %s timed out earlier\n' "$1" >"$_err"
      RC=124
      return 0
      ;;
  esac
  if [ "$_err" = "$_out" ]; then
    bounded "${BOUND:-$TO}" "$@" >"$_out" 2>&1 </dev/null
  else
    bounded "${BOUND:-$TO}" "$@" >"$_out" 2>"$_err" </dev/null
  fi
  RC=$?
  if [ "$TSTYLE" != none ]; then
    case $RC in
      124 | 137 | 143)
        RC=124
        HUNG="$HUNG$1 "
        ;;
    esac
  fi
  return 0
}

UNAVAIL=

# unavailable SECTION REASON [DETAIL]
unavailable() {
  UNAVAIL="$UNAVAIL$1 $2${3:+ $3}$NL"
}

# first_line FILE : the first line of FILE, printable ASCII only, at most 120 characters.
if have sed && have cut; then
  first_line() {
    [ -s "$1" ] || return 0
    sed -n '1{s/[^ -~]/ /g;s/  */ /g;p;q;}' "$1" 2>/dev/null | cut -c 1-120
  }
else
  _q='??????????'
  FIRST_120="$_q$_q$_q$_q$_q$_q$_q$_q$_q$_q$_q$_q"
  first_line() {
    [ -s "$1" ] || return 0
    _l=
    IFS= read -r _l <"$1" || :
    # shellcheck disable=SC2295 # FIRST_120 is a pattern: 120 times "?"
    [ "${#_l}" -le 120 ] || _l=${_l%"${_l#$FIRST_120}"}
    while :; do
      case $_l in
        *[![:print:]]*) _l="${_l%%[![:print:]]*} ${_l#*[![:print:]]}" ;;
        *"  "*) _l="${_l%%  *} ${_l#*  }" ;;
        *) break ;;
      esac
    done
    printf '%s\n' "$_l"
  }
fi

# classify RC ERRFILE : sets REASON and DETAIL for a command that did not succeed.
classify() {
  DETAIL="exit=$1"
  case $1 in
    124)
      REASON=timeout
      DETAIL="bound=${BOUND:-$TO}s"
      return 0
      ;;
    126) REASON=permission-denied ;;
    127) REASON=not-installed ;;
    *)
      if [ -s "$2" ] && grep -q -i -E 'permission denied|operation not permitted|must be root|access denied' "$2" 2>/dev/null; then
        REASON=permission-denied
      else
        REASON=failed
      fi
      ;;
  esac
  _line=$(first_line "$2")
  [ -z "$_line" ] || DETAIL="$DETAIL $_line"
  return 0
}

# fail SECTION RC ERRFILE : record a failed command in `unavailable`.
fail() {
  classify "$2" "$3"
  unavailable "$1" "$REASON" "$DETAIL"
}

header() {
  printf '### %s\n' "$1"
}

# nft_as_root SECTION : true when nft is there and we are root; else records why SECTION cannot be read.
nft_as_root() {
  if [ "$NFT" = no ]; then
    unavailable "$1" not-installed
    return 1
  fi
  if [ "$IS_ROOT" = no ]; then
    unavailable "$1" permission-denied
    return 1
  fi
  return 0
}

# body FILE : print FILE as a section body, ending with a newline.
if have sed && have tail; then
  body() {
    [ -s "$1" ] || return 0
    sed 's/^### / ### /' "$1"
    [ -z "$(tail -c 1 "$1")" ] || printf '\n'
  }
else
  body() {
    [ -s "$1" ] || return 0
    if grep -q '^### ' "$1"; then
      while IFS= read -r _line || [ -n "$_line" ]; do
        case $_line in
          '### '*) printf ' %s\n' "$_line" ;;
          *) printf '%s\n' "$_line" ;;
        esac
      done <"$1"
    else
      cat "$1"
      # grep counts a last line without a newline, wc does not.
      [ "$(grep -c '' "$1")" -eq "$(wc -l <"$1")" ] || printf '\n'
    fi
  }
fi

# file_section NAME PATH : raw file content; absent → not-present, unreadable → permission-denied.
file_section() {
  header "$1"
  if [ ! -e "$2" ]; then
    unavailable "$1" not-present "$2"
  elif [ ! -r "$2" ] || ! cat "$2" >"$OUT" 2>"$ERR"; then
    unavailable "$1" permission-denied "$2"
  else
    body "$OUT"
  fi
}

# command_section NAME CMD ARGS... : CMD's output as NAME's body (the caller printed the header); CMD
# not on PATH → not-installed, CMD failing → why (fail). True when CMD succeeded (its output is in OUT).
command_section() {
  _sec=$1
  shift
  if ! have "$1"; then
    unavailable "$_sec" not-installed
    return 1
  fi
  run "$OUT" "$ERR" "$@"
  if [ "$RC" = 0 ]; then
    body "$OUT"
    return 0
  fi
  fail "$_sec" "$RC" "$ERR"
  return 1
}

# kernel_file NAME PATH : true when PATH, a file of the running kernel's (REL), can be read; else
# records why NAME cannot be read (no kernel release or no such file → not-present).
kernel_file() {
  if [ -z "$REL" ] || [ ! -e "$2" ]; then
    unavailable "$1" not-present "$2"
    return 1
  fi
  if [ ! -r "$2" ]; then
    unavailable "$1" permission-denied "$2"
    return 1
  fi
  return 0
}

# safe_path PATH : PATH as printed, with HOST_ROOT taken off in a probe pod; a name with characters
# outside [A-Za-z0-9/._-] is printed as "(unusual name)" rather than carried into the bundle.
safe_path() {
  _p=$1
  [ "$WHERE" != probe-pod ] || _p=${_p#"$HOST_ROOT"}
  case $_p in
    *[!A-Za-z0-9/._-]*) printf '(unusual name)' ;;
    *) printf '%s' "$_p" ;;
  esac
}

# nul_lines FILE : FILE's NUL-separated strings (a cmdline, an environ), one a line; without tr,
# grep keeps the runs of characters between control characters.
nul_lines() {
  if have tr; then
    tr '\0' '\n' 2>/dev/null <"$1"
  else
    grep -a -o -E '[^[:cntrl:]]+' "$1" 2>/dev/null
  fi
}

# http_get URL : body to $OUT with the HTTP client HTTP names; sets HREASON/HDETAIL (empty HREASON = success).
http_get() {
  BOUND=$((TO + 2))
  case $HTTP in
    curl) run "$OUT" "$ERR" curl -s -f --max-time "$TO" --noproxy '*' "$1" ;;
    gnu-wget) run "$OUT" "$ERR" wget -q -O - -T "$TO" -t 1 --no-proxy "$1" ;;
    wget) run "$OUT" "$ERR" wget -q -O - -Y off "$1" ;;
    busybox-wget) run "$OUT" "$ERR" busybox wget -q -O - -Y off "$1" ;;
  esac
  HREASON=
  HDETAIL="exit=$RC"
  case $HTTP:$RC in
    *:0) ;;
    *:124)
      HREASON=timeout
      HDETAIL="bound=${BOUND}s"
      ;;
    *:127) HREASON=not-installed ;;
    curl:22) HREASON=failed HDETAIL="exit=22 http-error" ;;
    gnu-wget:8) HREASON=failed HDETAIL="exit=8 http-error" ;;
    curl:28) HREASON=unreachable HDETAIL="exit=28 no-answer" ;;
    *) HREASON=unreachable ;;
  esac
  BOUND=
}

# ---------------------------------------------------------------------------------------------
# kube-proxy's process: which flags of its command line are shown.

# proxy_flag_ok NAME : true for the flags worth showing. Only these names pass; every other argument
# (tokens, URLs, paths of secrets) is dropped.
proxy_flag_ok() {
  case $1 in
    proxy-mode | config | feature-gates | nodeport-addresses | *masquerade*) return 0 ;;
  esac
  return 1
}

# keep_k3s_arg VALUE : keeps --kube-proxy-arg=VALUE when the kube-proxy flag inside it is one the checks read.
keep_k3s_arg() {
  _inner=${1%%=*}
  _inner=${_inner#-}
  _inner=${_inner#-}
  if proxy_flag_ok "$_inner"; then PARGS="$PARGS --kube-proxy-arg=$1"; fi
}

# proxy_args ARGVFILE : the flags worth showing, as --name=value, space-separated (sets PARGS).
proxy_args() {
  PARGS=
  _want=
  _first=yes
  while IFS= read -r _arg || [ -n "$_arg" ]; do
    if [ "$_first" = yes ]; then
      _first=no
      continue
    fi
    if [ -n "$_want" ]; then
      _name=$_want
      _want=
      case $_name in
        kube-proxy-arg) keep_k3s_arg "$_arg" ;;
        *) PARGS="$PARGS --$_name=$_arg" ;;
      esac
      continue
    fi
    case $_arg in
      -*=*)
        _name=${_arg%%=*}
        _val=${_arg#*=}
        ;;
      -?*)
        _name=$_arg
        _val=
        ;;
      *) continue ;;
    esac
    _name=${_name#-}
    _name=${_name#-}
    case $_arg in
      *=*)
        case $_name in
          kube-proxy-arg) keep_k3s_arg "$_val" ;;
          *) proxy_flag_ok "$_name" && PARGS="$PARGS --$_name=$_val" ;;
        esac
        ;;
      *)
        case $_name in
          proxy-mode | config | feature-gates | nodeport-addresses | iptables-masquerade-bit | kube-proxy-arg) _want=$_name ;;
          *masquerade*) PARGS="$PARGS --$_name" ;;
        esac
        ;;
    esac
  done <"$1"
  PARGS=${PARGS# }
}

# nft_json_probe NFT LABEL : one line, LABEL json=yes|no|unknown, for whether NFT was built with JSON.
nft_json_probe() {
  run "$OUT" "$OUT" "$1" -j list tables
  if grep -q -i 'JSON support not compiled' "$OUT" 2>/dev/null; then
    printf '%s json=no\n' "$2"
  elif [ "$RC" = 0 ]; then
    printf '%s json=yes\n' "$2"
  else
    classify "$RC" "$OUT"
    printf '%s json=unknown %s %s\n' "$2" "$REASON" "$DETAIL"
  fi
}

# =============================================================================================
# Sections: one function each, printing its header and body and recording in `unavailable` why it
# could not be read. They run in the order listed at the end. A few set what later ones read:
# REL (kernel-release), IPT_VERSION (iptables-version), IPT_NFT_SAVED and IPT_NFT_INCOMPATIBLE
# (iptables-rules), MODE_REASON (kube-proxy-mode).

section_collector() {
  header collector
  printf 'version=%s\nuid=%s\ntime=%s\nwhere=%s\n' "$COLLECTOR_VERSION" "$UID_NUM" "$(date -u +%Y-%m-%dT%H:%M:%SZ 2>/dev/null)" "$WHERE"
}

section_hostname() {
  header hostname
  _host=
  # /proc/sys files may end at EOF without a newline when read byte by byte: keep what was read.
  read -r _host 2>/dev/null </proc/sys/kernel/hostname || :
  [ -n "$_host" ] || _host=$(hostname 2>/dev/null)
  [ -n "$_host" ] || _host=$(uname -n 2>/dev/null)
  if [ -n "$_host" ]; then
    printf '%s\n' "$_host"
  else
    unavailable hostname failed
  fi
}

# machine-id: what the Node calls nodeInfo.machineID and systemUUID, so that a probe can tell it reached
# that Node and not another machine. In kube-proxy's container /etc is the image's: no machine-id there.
section_machine_id() {
  header machine-id
  _etc=/etc
  [ "$WHERE" != probe-pod ] || _etc=$HOST_ROOT/etc
  _mid=
  [ "$WHERE" = kube-proxy-pod ] || read -r _mid 2>/dev/null <"$_etc/machine-id" || :
  _uuid=
  read -r _uuid 2>/dev/null </sys/class/dmi/id/product_uuid || :
  case $_mid in *[!0-9a-f]*) _mid= ;; esac
  case $_uuid in *[!0-9A-Fa-f-]*) _uuid= ;; esac
  [ -z "$_mid" ] || printf 'machine-id=%s\n' "$_mid"
  [ -z "$_uuid" ] || printf 'system-uuid=%s\n' "$_uuid"
  [ -n "$_mid$_uuid" ] || unavailable machine-id not-present "no readable /etc/machine-id or /sys/class/dmi/id/product_uuid"
}

# kernel-release: sets REL, which the kernel-config and module sections read.
section_kernel_release() {
  header kernel-release
  REL=$(uname -r 2>/dev/null)
  [ -n "$REL" ] || read -r REL 2>/dev/null </proc/sys/kernel/osrelease || :
  if [ -n "$REL" ]; then
    printf '%s\n' "$REL"
  else
    unavailable kernel-release failed
  fi
}

section_os_release() {
  if [ "$WHERE" = kube-proxy-pod ]; then
    header os-release
    unavailable os-release not-present "the node's /etc/os-release is not mounted in the kube-proxy container (its own is the image's)"
  elif [ "$WHERE" = probe-pod ]; then
    file_section os-release "$HOST_ROOT/os-release"
  elif [ -e /etc/os-release ]; then
    file_section os-release /etc/os-release
  else
    file_section os-release /usr/lib/os-release
  fi
}

# nft-version, kube-proxy-nft-version: the nft on PATH is the host's, or in a kube-proxy pod the
# image's: the one kube-proxy itself runs there.
section_nft_version() {
  header nft-version
  if [ "$WHERE" = kube-proxy-pod ]; then
    unavailable nft-version not-present "the node's own nft is not reachable from the kube-proxy container (the nft there is the image's: kube-proxy-nft-version)"
  elif [ "$WHERE" = probe-pod ]; then
    unavailable nft-version not-present "the node's own nft cannot run in the probe pod (the nft there is kube-proxy's image's: kube-proxy-nft-version)"
  else
    command_section nft-version nft --version
  fi
}

section_kube_proxy_nft_version() {
  header kube-proxy-nft-version
  if [ "$WHERE" != host ]; then
    command_section kube-proxy-nft-version nft --version
  else
    unavailable kube-proxy-nft-version not-present "the collector ran on the host: the nft in kube-proxy's image is read in its pod (kpx-check cluster --node-probe exec)"
  fi
}

# iptables-version: sets IPT_VERSION, which iptables-policies reads.
section_iptables_version() {
  header iptables-version
  IPT_VERSION=
  if command_section iptables-version iptables --version; then
    IPT_VERSION=$(cat "$OUT")
  fi
}

KCONFIG='(NF_TABLES|NF_TABLES_IPV4|NF_TABLES_IPV6|NF_TABLES_INET|NFT_[A-Z0-9_]+|NF_CONNTRACK|NF_NAT|NETFILTER_NETLINK_ACCT|NETFILTER_XT_MATCH_NFACCT|IP_VS)'
section_kernel_config() {
  header kernel-config
  _src=
  _why=not-present
  _detail=
  if [ -e /proc/config.gz ]; then
    if [ ! -r /proc/config.gz ]; then
      _why=permission-denied
      _detail=/proc/config.gz
    elif have gzip || have zcat; then
      if have gzip; then
        run "$TMPF" "$ERR" gzip -dc /proc/config.gz
      else
        run "$TMPF" "$ERR" zcat /proc/config.gz
      fi
      if [ "$RC" = 0 ]; then
        _src=/proc/config.gz
      else
        classify "$RC" "$ERR"
        _why=$REASON
        _detail="/proc/config.gz $DETAIL"
      fi
    else
      _why=not-installed
      _detail='gzip (for /proc/config.gz)'
    fi
  fi
  if [ -z "$_src" ] && [ -n "$REL" ]; then
    for _file in "/boot/config-$REL" "/lib/modules/$REL/config"; do
      [ -e "$_file" ] || continue
      if [ -r "$_file" ] && cat "$_file" >"$TMPF" 2>/dev/null; then
        _src=$_file
        break
      fi
      _why=permission-denied
      _detail=$_file
    done
  fi
  if [ -n "$_src" ]; then
    {
      printf '# source: %s\n' "$_src"
      grep -E "^(CONFIG_$KCONFIG=|# CONFIG_$KCONFIG is not set)" "$TMPF" 2>/dev/null
    } >"$OUT"
    body "$OUT"
  else
    [ -n "$_detail" ] || _detail="/proc/config.gz /boot/config-$REL"
    unavailable kernel-config "$_why" "$_detail"
  fi
  : >"$TMPF"
}

section_modules() {
  file_section modules /proc/modules
}

# modules-builtin, modules-available: the module names of the kernel's module index that concern netfilter and IPVS.
MODPAT='(^|/)(nf_|nft_|nfnetlink|ip_vs|xt_nfacct)[^/]*$'
section_modules_builtin() {
  header modules-builtin
  _file="/lib/modules/$REL/modules.builtin"
  if kernel_file modules-builtin "$_file"; then
    grep -E "$MODPAT" "$_file" >"$OUT" 2>/dev/null
    body "$OUT"
  fi
}

section_modules_available() {
  header modules-available
  _file="/lib/modules/$REL/modules.dep"
  if kernel_file modules-available "$_file"; then
    if have sed; then
      sed -n 's/:.*//p' "$_file" 2>/dev/null >"$TMPF"
    else
      grep -o -E '^[^:]*' "$_file" 2>/dev/null >"$TMPF"
    fi
    grep -E "$MODPAT" "$TMPF" >"$OUT" 2>/dev/null
    body "$OUT"
  fi
}

# nft-check: a kube-proxy-like ruleset (probe_ruleset) in scratch tables, checked (-c) and never committed.
section_nft_check() {
  header nft-check
  nft_as_root nft-check || return 0
  _probe="${S}probe.nft"
  probe_ruleset >"$_probe"
  run "$OUT" "$OUT" nft -c -f "$_probe"
  rm -f "$_probe"
  if [ "$RC" = 124 ] || [ "$RC" = 127 ] || [ "$RC" = 126 ]; then
    fail nft-check "$RC" "$OUT"
  elif [ "$RC" != 0 ] && grep -q -i -E 'operation not permitted|permission denied' "$OUT" 2>/dev/null; then
    # root without CAP_NET_ADMIN (e.g. an unprivileged container): no verdict on the kernel.
    fail nft-check "$RC" "$OUT"
  else
    printf 'exit=%s\n' "$RC"
    body "$OUT"
  fi
}

# ipvs: no /proc/net/ip_vs means the ip_vs module is not loaded (empty body, not unknown).
section_ipvs() {
  header ipvs
  if [ -e /proc/net/ip_vs ]; then
    if [ -r /proc/net/ip_vs ] && cat /proc/net/ip_vs >"$OUT" 2>/dev/null; then
      body "$OUT"
    else
      unavailable ipvs permission-denied /proc/net/ip_vs
    fi
  fi
}

section_kube_ipvs0() {
  header kube-ipvs0
  if [ -d /sys/class/net ] && [ ! -e /sys/class/net/kube-ipvs0 ]; then
    : # no such interface: empty body
  elif ! have ip; then
    unavailable kube-ipvs0 not-installed ip
  else
    run "$OUT" "$ERR" ip -o addr show dev kube-ipvs0
    if [ "$RC" = 0 ]; then
      body "$OUT"
    elif [ ! -d /sys/class/net ] && grep -q -i 'does not exist' "$ERR" 2>/dev/null; then
      : # no /sys to look at, and ip says the device does not exist: empty body
    else
      fail kube-ipvs0 "$RC" "$ERR"
    fi
  fi
}

# sysctl: read from /proc/sys; absent ones are skipped.
section_sysctl() {
  header sysctl
  _denied=
  for _name in net.ipv4.conf.all.route_localnet net.netfilter.nf_conntrack_tcp_be_liberal net.ipv4.vs.conn_reuse_mode; do
    case $_name in
      net.ipv4.conf.all.route_localnet) _file=/proc/sys/net/ipv4/conf/all/route_localnet ;;
      net.netfilter.nf_conntrack_tcp_be_liberal) _file=/proc/sys/net/netfilter/nf_conntrack_tcp_be_liberal ;;
      *) _file=/proc/sys/net/ipv4/vs/conn_reuse_mode ;;
    esac
    [ -e "$_file" ] || continue
    _val=
    # A /proc/sys int reads as EOF after its first byte when read byte by byte (as read does):
    # read then fails but has set the value.
    if read -r _val 2>/dev/null <"$_file" || [ -n "$_val" ]; then
      printf '%s = %s\n' "$_name" "$_val"
    else
      _denied="$_denied${_denied:+,}$_name"
    fi
  done
  [ -z "$_denied" ] || unavailable sysctl permission-denied "$_denied"
}

SERVICES='firewalld ufw nftables docker keepalived'
section_services() {
  header services
  _done=no
  if [ "$WHERE" = kube-proxy-pod ]; then
    unavailable services not-present "the node's processes and /etc are not visible from the kube-proxy container (no hostPID)"
    _done=yes
  elif [ "$WHERE" = host ] && [ -d /run/systemd/system ] && have systemctl; then
    # shellcheck disable=SC2086 # SERVICES is a fixed word list
    run "$OUT" "$ERR" systemctl is-active $SERVICES
    # is-active exits non-zero when a unit is not active; its stdout still has one line per unit.
    if [ "$RC" != 124 ] && [ "$(grep -c . "$OUT" 2>/dev/null)" = 5 ]; then
      printf '# method: systemctl\n'
      # shellcheck disable=SC2086 # SERVICES is a fixed word list
      set -- $SERVICES
      while read -r _state; do
        printf '%s %s\n' "$1" "$_state"
        shift
      done <"$OUT"
      _done=yes
    fi
  fi
  [ "$_done" = no ] || return 0
  ETC=/etc
  [ "$WHERE" = probe-pod ] && ETC=$HOST_ROOT/etc
  printf '# method: proc\n'
  _seen=' '
  for _pid in /proc/[0-9]*; do
    _comm=
    read -r _comm 2>/dev/null <"$_pid/comm" || continue
    case $_comm in
      firewalld | dockerd | keepalived) _seen="$_seen$_comm " ;;
    esac
  done
  for _svc in $SERVICES; do
    case $_svc in
      firewalld) _proc=firewalld ;;
      docker) _proc=dockerd ;;
      keepalived) _proc=keepalived ;;
      *) _proc= ;;
    esac
    if [ "$_svc" = ufw ]; then
      # ufw has no daemon: it is on when its config says so.
      if [ -r "$ETC/ufw/ufw.conf" ] && grep -q -E '^[[:space:]]*ENABLED[[:space:]]*=[[:space:]]*"?yes' "$ETC/ufw/ufw.conf" 2>/dev/null; then
        _state=active
      else
        _state=inactive
      fi
    elif [ -z "$_proc" ]; then
      _state=unknown # nftables.service is a one-shot loader: no process to look for
    else
      case $_seen in
        *" $_proc "*) _state=active ;;
        *) _state=inactive ;;
      esac
    fi
    printf '%s %s\n' "$_svc" "$_state"
  done
}

# iptables-policies (root)
section_iptables_policies() {
  header iptables-policies
  if ! have iptables; then
    unavailable iptables-policies not-installed
    return 0
  elif [ "$IS_ROOT" = no ]; then
    unavailable iptables-policies permission-denied
    return 0
  fi
  case $IPT_VERSION in
    *nf_tables*) ;;
    *)
      # legacy backend: `iptables -S` would modprobe iptable_filter if the table is not there.
      if ! grep -q -x filter /proc/net/ip_tables_names 2>/dev/null; then
        printf '# legacy filter table not loaded; not loading it\n'
        return 0
      fi
      ;;
  esac
  : >"$TMPF"
  _failed=
  for _chain in INPUT FORWARD; do
    run "$OUT" "$ERR" iptables -S "$_chain"
    if [ "$RC" = 0 ]; then
      grep '^-P ' "$OUT" >>"$TMPF" 2>/dev/null
    elif [ -z "$_failed" ]; then
      _failed=$RC
      cat "$ERR" >"${S}err2" 2>/dev/null
    fi
  done
  body "$TMPF"
  [ -z "$_failed" ] || fail iptables-policies "$_failed" "${S}err2"
}

# iptables-rules (root): rule counts per backend. svc= counts the rules and chains of kube-proxy's
# Service chains (left over after a switch to nftables, rebuilt after a rollback); KUBE-FIREWALL and
# the canary chains are the kubelet's and stay. The IPv6 count comes first, on a line of its own;
# when ip6tables-*-save fails, the IPv4 line has no svc=. Sets IPT_NFT_SAVED and IPT_NFT_INCOMPATIBLE.
SVC_CHAINS='^(:|-A ).*KUBE-(SERVICES|EXTERNAL-SERVICES|NODEPORTS|SVC-|SEP-|EXT-|FW-|SVL-|XLB-)'
section_iptables_rules() {
  header iptables-rules
  IPT_NFT_SAVED=no
  IPT_NFT_INCOMPATIBLE=
  _lines=0
  _failed=
  _tried=0
  for _backend in legacy nft; do
    # Not _cmd: watched() sets that to the PID of what it runs.
    _save="iptables-$_backend-save"
    have "$_save" || continue
    _tried=$((_tried + 1))
    [ "$IS_ROOT" = yes ] || continue
    _svc6=0
    if have "ip6tables-$_backend-save"; then
      run "$OUT" "$ERR" "ip6tables-$_backend-save"
      if [ "$RC" = 0 ]; then
        _svc6=$(grep -c -E "$SVC_CHAINS" "$OUT" 2>/dev/null)
        printf '%s6 svc=%s\n' "$_backend" "${_svc6:-0}"
      else
        _svc6=
      fi
    fi
    run "$OUT" "$ERR" "$_save"
    if [ "$_backend" = nft ] && [ "$RC" != 124 ]; then
      # A table holding native nftables rules is named, not saved (iptables-nft-incompatible reads this).
      IPT_NFT_INCOMPATIBLE=$(grep -h -o -i -E "table .[a-z0-9_]+' is incompatible" "$OUT" "$ERR" 2>/dev/null)
      { [ "$RC" != 0 ] && [ -z "$IPT_NFT_INCOMPATIBLE" ]; } || IPT_NFT_SAVED=yes
    fi
    if [ "$RC" = 0 ]; then
      _total=$(grep -c '^-A' "$OUT" 2>/dev/null)
      _kube=$(grep '^-A' "$OUT" 2>/dev/null | grep -c 'KUBE-')
      _svc=$(grep -c -E "$SVC_CHAINS" "$OUT" 2>/dev/null)
      printf '%s total=%s kube=%s%s\n' "$_backend" "${_total:-0}" "${_kube:-0}" "${_svc6:+ svc=${_svc:-0}}"
      _lines=$((_lines + 1))
    else
      printf '# %s failed exit=%s\n' "$_backend" "$RC"
      if [ -z "$_failed" ]; then
        _failed=$RC
        cat "$ERR" >"${S}err2" 2>/dev/null
      fi
    fi
  done
  if [ "$_tried" = 0 ]; then
    unavailable iptables-rules not-installed
  elif [ "$IS_ROOT" = no ]; then
    unavailable iptables-rules permission-denied
  elif [ "$_lines" = 0 ]; then
    fail iptables-rules "$_failed" "${S}err2"
  fi
}

# nft-tables, nft-chains (root)
section_nft_tables() {
  header nft-tables
  if nft_as_root nft-tables; then
    command_section nft-tables nft list tables
  fi
}

section_nft_chains() {
  header nft-chains
  nft_as_root nft-chains || return 0
  run "$TMPF" "$ERR" nft list ruleset
  if [ "$RC" = 0 ]; then
    grep -E '^table |^[[:space:]]+(chain|map|set) |^[[:space:]]+type [a-z]+ hook ' "$TMPF" >"$OUT" 2>/dev/null
    body "$OUT"
  else
    fail nft-chains "$RC" "$ERR"
  fi
  : >"$TMPF"
}

section_addresses() {
  header addresses
  if have ip; then
    command_section addresses ip -o addr show scope global
  else
    unavailable addresses not-installed ip
  fi
}

# kube-proxy-mode, kube-proxy-metrics (http://127.0.0.1:10249). kube-proxy-mode sets MODE_REASON: when
# the endpoint did not answer, the metrics are not asked for.
# http_section SECTION URL : the answer's body as SECTION, or why there is none (HREASON: empty on success).
http_section() {
  header "$1"
  HREASON=
  if [ -z "$HTTP" ]; then
    unavailable "$1" not-installed 'curl or wget'
    return 0
  fi
  http_get "$2"
  if [ -z "$HREASON" ]; then
    body "$OUT"
  else
    unavailable "$1" "$HREASON" "$HDETAIL"
  fi
}

section_kube_proxy_mode() {
  http_section kube-proxy-mode http://127.0.0.1:10249/proxyMode
  MODE_REASON=$HREASON
}

section_kube_proxy_metrics() {
  header kube-proxy-metrics
  if [ -z "$HTTP" ]; then
    unavailable kube-proxy-metrics not-installed 'curl or wget'
    return 0
  elif [ "$MODE_REASON" = timeout ] || [ "$MODE_REASON" = unreachable ]; then
    unavailable kube-proxy-metrics "$MODE_REASON" 'same endpoint as kube-proxy-mode'
    return 0
  fi
  http_get http://127.0.0.1:10249/metrics
  if [ -z "$HREASON" ]; then
    grep -E '^kubeproxy_(iptables_ct_state_invalid_dropped_packets_total|iptables_localhost_nodeports_accepted_packets_total|sync_proxy_rules_nftables_sync_failures_total|sync_proxy_rules_nftables_cleanup_failures_total|sync_proxy_rules_iptables_total|sync_proxy_rules_last_timestamp_seconds|sync_proxy_rules_last_queued_timestamp_seconds)([{ ]|$)' "$OUT" >"$TMPF" 2>/dev/null
    body "$TMPF"
  else
    unavailable kube-proxy-metrics "$HREASON" "$HDETAIL"
  fi
  : >"$TMPF"
}

# kube-proxy's health server (healthzBindAddress, default 0.0.0.0:10256): JSON. It answers 503 when unhealthy,
# which curl -f and wget take for a failure: then the section is unavailable (failed).
section_kube_proxy_healthz() {
  http_section kube-proxy-healthz http://127.0.0.1:10256/healthz
}

section_kube_proxy_process() {
  header kube-proxy-process
  _hidden=no
  if [ "$IS_ROOT" = no ] && grep -q -E '^[^ ]+ /proc proc [^ ]*hidepid=([12]|noaccess|invisible)' /proc/mounts 2>/dev/null; then
    _hidden=yes
  fi
  # A cheap pre-filter in one process; each candidate's argv[0] is then checked exactly.
  run "$TMPF" "$ERR" grep -l -E 'kube-proxy|k3s|rke2' /proc/[0-9]*/cmdline
  if [ "$RC" = 124 ]; then
    fail kube-proxy-process "$RC" "$ERR"
  else
    _argv="${S}argv"
    : >"$OUT"
    while IFS= read -r _path; do
      _pid=${_path#/proc/}
      _pid=${_pid%/cmdline}
      case $_pid in '' | *[!0-9]*) continue ;; esac
      [ "$_pid" = "$$" ] && continue
      nul_lines "$_path" >"$_argv" || continue
      _arg0=
      IFS= read -r _arg0 <"$_argv" || [ -n "$_arg0" ] || continue
      _exe=${_arg0%% *}
      _exe=${_exe##*/}
      case $_exe in
        kube-proxy | k3s | k3s-server | k3s-agent | rke2) ;;
        *) continue ;;
      esac
      _container=no
      if [ "$WHERE" = kube-proxy-pod ] || grep -q -E 'kubepods|docker|containerd|crio' "/proc/$_pid/cgroup" 2>/dev/null; then
        _container=yes
      fi
      proxy_args "$_argv"
      printf 'pid=%s exe=%s container=%s args=%s\n' "$_pid" "$_exe" "$_container" "$PARGS" >>"$OUT"
      case $_exe in
        kube-proxy | k3s | k3s-server | k3s-agent)
          # The environment is searched, never printed.
          _envf="/proc/$_pid/environ"
          _skip=unreadable
          if [ -r "$_envf" ] && nul_lines "$_envf" >/dev/null; then
            if nul_lines "$_envf" | grep -q '^KUBE_PROXY_NFTABLES_SKIP_KERNEL_VERSION_CHECK=.'; then
              _skip='set'
            else
              _skip='unset'
            fi
          fi
          printf 'skip-kernel-check=%s\n' "$_skip" >>"$OUT"
          ;;
      esac
    done <"$TMPF"
    rm -f "$_argv"
    body "$OUT"
    [ "$_hidden" = no ] || unavailable kube-proxy-process permission-denied 'hidepid on /proc'
  fi
  : >"$TMPF"
}

# What breaks after the switch, seen before it (field reports of 2025–2026), and rollback readiness.

# nft-json: whether the nft kube-proxy runs was built with JSON (`nft -j`), which kube-proxy
# before 1.37 lists its elements with. Without it nft stops at the option, before any netlink
# request, so no root is needed to tell. k3s's own nft (its data folder) is tried too.
section_nft_json() {
  header nft-json
  if [ "$NFT" = yes ]; then
    nft_json_probe nft path
  else
    printf 'path json=unknown not-installed\n'
  fi
  [ "$WHERE" = host ] || return 0
  for _nft in /var/lib/rancher/k3s/data/current/bin/aux/nft /var/lib/rancher/k3s/data/current/bin/nft; do
    [ -x "$_nft" ] || continue
    nft_json_probe "$_nft" k3s
    break
  done
}

# ruleset-flush: configuration that flushes the whole ruleset (`flush ruleset` in what
# nftables.service loads; firewalld's FlushAllOnReload), which deletes kube-proxy's tables too.
section_ruleset_flush() {
  header ruleset-flush
  if [ "$WHERE" = kube-proxy-pod ]; then
    unavailable ruleset-flush not-present "the node's /etc is not visible from the kube-proxy container"
    return 0
  fi
  _etc=/etc
  [ "$WHERE" != probe-pod ] || _etc=$HOST_ROOT/etc
  _denied=
  for _file in "$_etc/nftables.conf" "$_etc/sysconfig/nftables.conf" "$_etc"/nftables/*.nft "$_etc"/nftables/*.conf "$_etc"/nftables.d/*.nft "$_etc"/nftables.d/*.conf; do
    [ -f "$_file" ] || continue
    if [ ! -r "$_file" ]; then
      _denied="$_denied${_denied:+,}$(safe_path "$_file")"
      continue
    fi
    if grep -q -E '^[[:space:]]*flush[[:space:]]+ruleset([[:space:];#]|$)' "$_file" 2>/dev/null; then
      printf 'flush-ruleset %s\n' "$(safe_path "$_file")"
    fi
  done
  _fw="$_etc/firewalld/firewalld.conf"
  if [ -f "$_fw" ]; then
    if [ -r "$_fw" ] && grep -E '^[[:space:]]*FlushAllOnReload[[:space:]]*=' "$_fw" >"$TMPF" 2>/dev/null; then
      _v=
      IFS= read -r _v <"$TMPF" || :
      _v=${_v#*=}
      case $_v in
        yes | no) ;;
        *) _v=other ;;
      esac
      printf 'firewalld-flush-all-on-reload %s\n' "$_v"
    elif [ -r "$_fw" ]; then
      printf 'firewalld-flush-all-on-reload default\n'
    else
      _denied="$_denied${_denied:+,}$(safe_path "$_fw")"
    fi
    : >"$TMPF"
  fi
  if [ "$WHERE" = host ] && [ -d /run/systemd/system ] && have systemctl; then
    run "$OUT" "$ERR" systemctl is-enabled nftables.service
    _state=
    IFS= read -r _state <"$OUT" 2>/dev/null || :
    case $_state in
      '' | *[!a-z-]*) _state=unknown ;;
    esac
    printf 'nftables-service %s\n' "$_state"
  fi
  [ -z "$_denied" ] || unavailable ruleset-flush permission-denied "$_denied"
}

# ipvs-balancers: kube-vip and lvscare, as static pods (their manifests) and as processes, and
# whether kube-vip balances with IPVS (lb_enable=true). Environments are searched, never printed.
section_ipvs_balancers() {
  header ipvs-balancers
  if [ "$WHERE" = kube-proxy-pod ]; then
    unavailable ipvs-balancers not-present "the node's processes and static pods are not visible from the kube-proxy container (no hostPID)"
    return 0
  fi
  _root=
  [ "$WHERE" != probe-pod ] || _root=$HOST_ROOT
  _denied=
  for _dir in "$_root/etc/kubernetes/manifests" /var/lib/rancher/rke2/agent/pod-manifests /var/lib/rancher/k3s/agent/pod-manifests; do
    [ -d "$_dir" ] || continue
    if [ ! -r "$_dir" ] || [ ! -x "$_dir" ]; then
      _denied="$_denied${_denied:+,}$(safe_path "$_dir")"
      continue
    fi
    for _file in "$_dir"/*; do
      [ -f "$_file" ] || continue
      if [ ! -r "$_file" ]; then
        _denied="$_denied${_denied:+,}$(safe_path "$_file")"
        continue
      fi
      grep -q -E 'image:.*(kube-vip|lvscare)' "$_file" 2>/dev/null || continue
      _name=kube-vip
      grep -q -E 'image:.*lvscare' "$_file" 2>/dev/null && _name=lvscare
      grep -A 1 -E '^[[:space:]-]*name:[[:space:]]*"?lb_enable"?[[:space:]]*$' "$_file" >"$TMPF" 2>/dev/null
      _lb=false
      grep -q -E 'value:[[:space:]]*"?true"?' "$TMPF" 2>/dev/null && _lb=true
      printf 'static-pod %s %s lb_enable=%s\n' "$_name" "$(safe_path "$_file")" "$_lb"
    done
  done
  for _pid in /proc/[0-9]*; do
    _comm=
    read -r _comm 2>/dev/null <"$_pid/comm" || continue
    case $_comm in
      kube-vip | lvscare) ;;
      *) continue ;;
    esac
    _lb=unreadable
    if [ -r "$_pid/environ" ] && nul_lines "$_pid/environ" >"$TMPF" 2>/dev/null && [ -s "$TMPF" ]; then
      _lb=false
      grep -q -x 'lb_enable=true' "$TMPF" 2>/dev/null && _lb=true
    fi
    printf 'process %s pid=%s lb_enable=%s\n' "$_comm" "${_pid#/proc/}" "$_lb"
  done
  : >"$TMPF"
  [ -z "$_denied" ] || unavailable ipvs-balancers permission-denied "$_denied"
}

# rollback-kernel: whether the kernel can still run the modes a rollback goes back to: iptables
# (ip_tables with iptable_nat, or nft_compat under iptables-nft) and IPVS (ip_vs). Each module is
# loaded, builtin, module (loadable), missing (not in a readable module index) or unknown (not
# loaded, and no module index to look in).
section_rollback_kernel() {
  header rollback-kernel
  _builtin="/lib/modules/$REL/modules.builtin"
  _dep="/lib/modules/$REL/modules.dep"
  _index=no
  [ -n "$REL" ] && [ -r "$_builtin" ] && [ -r "$_dep" ] && _index=yes
  for _mod in ip_tables iptable_nat nft_compat ip_vs; do
    if grep -q "^$_mod " /proc/modules 2>/dev/null; then
      _state=loaded
    elif [ "$_index" = no ]; then
      _state=unknown
    elif grep -q -E "(^|/)$_mod\\.ko" "$_builtin" 2>/dev/null; then
      _state=builtin
    elif grep -q -E "(^|/)$_mod\\.ko" "$_dep" 2>/dev/null; then
      _state=module
    else
      _state=missing
    fi
    printf '%s %s\n' "$_mod" "$_state"
  done
}

# iptables-nft-incompatible (root): the tables iptables-nft-save could not render, because another
# tool wrote native nftables rules into them (iptables-rules ran it).
section_iptables_nft_incompatible() {
  header iptables-nft-incompatible
  if [ "$IPT_NFT_SAVED" = yes ]; then
    [ -z "$IPT_NFT_INCOMPATIBLE" ] || printf '%s\n' "$IPT_NFT_INCOMPATIBLE"
  elif ! have iptables-nft-save; then
    unavailable iptables-nft-incompatible not-installed iptables-nft-save
  elif [ "$IS_ROOT" = no ]; then
    unavailable iptables-nft-incompatible permission-denied
  else
    unavailable iptables-nft-incompatible failed 'iptables-nft-save failed (see iptables-rules)'
  fi
}

# ipsets (root): the KUBE-* ipsets, which IPVS mode makes and its cleanup destroys only where the ipset command
# works in kube-proxy's image: their names (ipset list -n), at most IPSET_MAX, then how many more. Without ip_set
# in the kernel there is no set: an empty body, and ipset is not run (asking would load the module). ip_set has a
# parameter, so /sys/module lists it built in as well as loaded.
IPSET_MAX=64
section_ipsets() {
  header ipsets
  if [ -d /sys/module ] && [ ! -d /sys/module/ip_set ]; then
    return 0
  fi
  if ! have ipset; then
    unavailable ipsets not-installed ipset
    return 0
  fi
  run "$OUT" "$ERR" ipset list -n
  if [ "$RC" != 0 ]; then
    fail ipsets "$RC" "$ERR"
    return 0
  fi
  _sets=0
  : >"$TMPF"
  while IFS= read -r _set || [ -n "$_set" ]; do
    case $_set in
      KUBE-*) _sets=$((_sets + 1)) ;;
      *) continue ;;
    esac
    [ "$_sets" -gt "$IPSET_MAX" ] || printf '%s\n' "$_set" >>"$TMPF"
  done <"$OUT"
  [ "$_sets" -le "$IPSET_MAX" ] || printf '# %s more\n' "$((_sets - IPSET_MAX))" >>"$TMPF"
  body "$TMPF"
  : >"$TMPF"
}

# unavailable: always last, one line per section that could not be read.
section_unavailable() {
  header unavailable
  printf '%s' "$UNAVAIL"
}

# =============================================================================================
# Data

# probe_ruleset : the ruleset nft-check checks (nft -c), like the one kube-proxy writes: IPv4 and IPv6
# tables with sets, verdict maps, dynamic sets with timeouts, numgen, fib, masquerade fully-random, dnat.
probe_ruleset() {
  cat <<'RULESET'
table ip kpx-check-probe {
	set cluster-ips {
		type ipv4_addr
		elements = { 10.96.0.10 }
	}
	set affinity-probe {
		type ipv4_addr
		flags dynamic,timeout
		timeout 3h
	}
	map service-ips {
		type ipv4_addr . inet_proto . inet_service : verdict
		elements = { 10.96.0.10 . tcp . 53 : goto service-probe }
	}
	map no-endpoint-services {
		type ipv4_addr . inet_proto . inet_service : verdict
		elements = { 10.96.0.11 . tcp . 80 : goto reject-chain }
	}
	chain filter-prerouting {
		type filter hook prerouting priority -110; policy accept;
		ct state new jump endpoints-check
	}
	chain filter-input {
		type filter hook input priority -110; policy accept;
		ct state invalid drop
		ct state new jump endpoints-check
	}
	chain filter-forward {
		type filter hook forward priority -110; policy accept;
		ct state new jump endpoints-check
		ct state new jump cluster-ips-check
	}
	chain filter-output {
		type filter hook output priority -110; policy accept;
		ct state new jump endpoints-check
	}
	chain nat-prerouting {
		type nat hook prerouting priority -100; policy accept;
		jump services
	}
	chain nat-output {
		type nat hook output priority -100; policy accept;
		jump services
	}
	chain nat-postrouting {
		type nat hook postrouting priority 100; policy accept;
		jump masquerading
	}
	chain cluster-ips-check {
		ip daddr @cluster-ips reject
		ip daddr 10.96.0.0/12 drop
	}
	chain endpoints-check {
		ip daddr . meta l4proto . th dport vmap @no-endpoint-services
	}
	chain reject-chain {
		reject
	}
	chain mark-for-masquerade {
		meta mark set meta mark | 0x4000
	}
	chain masquerading {
		meta mark & 0x4000 == 0 return
		meta mark set meta mark ^ 0x4000
		masquerade fully-random
	}
	chain services {
		ip daddr . meta l4proto . th dport vmap @service-ips
		fib daddr type local ip daddr != 127.0.0.0/8 jump nodeports
	}
	chain nodeports {
		fib saddr type local jump mark-for-masquerade
	}
	chain service-probe {
		ip daddr 10.96.0.10 tcp dport 53 ip saddr != 10.244.0.0/16 jump mark-for-masquerade
		ip saddr @affinity-probe goto endpoint-a
		numgen random mod 2 vmap { 0 : goto endpoint-a, 1 : goto endpoint-b }
	}
	chain endpoint-a {
		ip saddr 10.244.1.5 jump mark-for-masquerade
		update @affinity-probe { ip saddr }
		meta l4proto tcp dnat to 10.244.1.5:53
	}
	chain endpoint-b {
		ct original ip daddr 10.96.0.10 meta l4proto tcp dnat to 10.244.2.7:53
	}
}
table ip6 kpx-check-probe {
	set affinity-probe {
		type ipv6_addr
		flags dynamic,timeout
		timeout 3h
	}
	map no-endpoint-services {
		type ipv6_addr . inet_proto . inet_service : verdict
		elements = { fd00:10:96::11 . tcp . 80 : goto reject-chain }
	}
	chain filter-prerouting {
		type filter hook prerouting priority -110; policy accept;
		ct state new ip6 daddr . meta l4proto . th dport vmap @no-endpoint-services
	}
	chain filter-input {
		type filter hook input priority -110; policy accept;
		ct state invalid drop
	}
	chain nat-prerouting {
		type nat hook prerouting priority -100; policy accept;
		jump services
	}
	chain nat-postrouting {
		type nat hook postrouting priority 100; policy accept;
		meta mark & 0x4000 == 0 return
		masquerade fully-random
	}
	chain reject-chain {
		reject
	}
	chain services {
		ip6 daddr fd00:10:96::10 tcp dport 53 goto service-probe
		fib daddr type local jump nodeports
	}
	chain nodeports {
		fib saddr type local meta mark set meta mark | 0x4000
	}
	chain service-probe {
		ip6 saddr @affinity-probe goto endpoint-a
		numgen random mod 2 vmap { 0 : goto endpoint-a, 1 : goto endpoint-b }
	}
	chain endpoint-a {
		update @affinity-probe { ip6 saddr }
		meta l4proto tcp dnat to [fd00:10:244::5]:53
	}
	chain endpoint-b {
		meta l4proto tcp dnat to [fd00:10:244::7]:53
	}
}
RULESET
}

# =============================================================================================
# Set-up

TO=5
if [ -n "${KPX_TIMEOUT+x}" ]; then
  case $KPX_TIMEOUT in
    '' | *[!0-9]* | 0*) printf 'kpx-check collector: ignoring KPX_TIMEOUT (want 1-300 seconds)\n' >&2 ;;
    *)
      if [ "${#KPX_TIMEOUT}" -le 3 ] && [ "$KPX_TIMEOUT" -le 300 ]; then
        TO=$KPX_TIMEOUT
      else
        printf 'kpx-check collector: ignoring KPX_TIMEOUT (want 1-300 seconds)\n' >&2
      fi
      ;;
  esac
fi

# How to call timeout: coreutils and busybox >= 1.30 take `timeout [-k K] SECS`, older busybox
# takes `timeout -t SECS`. Without any, a watchdog (sleep, then kill -s KILL) bounds commands where
# sleep exists (the kube-proxy image, where a hung command would outlive the exec); else they run unbounded.
TSTYLE=none
if have timeout; then
  if timeout -k 1 2 true >/dev/null 2>&1 </dev/null; then
    TSTYLE='kill'
  elif timeout 2 true >/dev/null 2>&1 </dev/null; then
    TSTYLE=plain
  elif timeout -t 2 true >/dev/null 2>&1 </dev/null; then
    TSTYLE=old
  fi
elif have sleep; then
  TSTYLE=watchdog
fi

SCRATCH=
S=
for _dir in "${TMPDIR:-/tmp}" /tmp /dev/shm /var/tmp /run; do
  if [ ! -d "$_dir" ] || [ ! -w "$_dir" ]; then
    continue
  fi
  if have mktemp; then
    SCRATCH=$(mktemp -d "$_dir/kpx-check.XXXXXX" 2>/dev/null) && [ -d "$SCRATCH" ] && break
  elif have mkdir; then
    mkdir "$_dir/kpx-check.$$" 2>/dev/null && SCRATCH="$_dir/kpx-check.$$" && break
  elif scratch_files "$_dir/kpx-check.$$."; then
    S="$_dir/kpx-check.$$."
    break
  fi
  SCRATCH=
done
[ -z "$SCRATCH" ] || S="$SCRATCH/"
if [ -z "$S" ]; then
  printf 'kpx-check collector: no writable scratch directory (tried %s)\n' 'TMPDIR, /tmp, /dev/shm, /var/tmp, /run' >&2
  exit 1
fi

trap cleanup EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM
# A broken stdout (the reader went away: a timed-out SSH session) still removes the scratch folder.
trap 'exit 141' PIPE

OUT="${S}out"
ERR="${S}err"
TMPF="${S}tmp"

# Who runs it, and with which tools.
UID_NUM=$(id -u 2>/dev/null)
if [ -z "$UID_NUM" ]; then
  while read -r _key _val _rest; do
    if [ "$_key" = Uid: ]; then
      UID_NUM=$_val
      break
    fi
  done </proc/self/status
fi
IS_ROOT=no
[ "$UID_NUM" = 0 ] && IS_ROOT=yes

NFT=no
have nft && NFT=yes

# The HTTP client for kube-proxy's endpoints.
HTTP=
if have curl; then
  HTTP=curl
elif have wget; then
  if wget -V 2>/dev/null </dev/null | grep -q 'GNU Wget'; then
    HTTP=gnu-wget
  else
    HTTP=wget
  fi
elif have busybox && busybox --list 2>/dev/null | grep -q -x wget; then
  HTTP=busybox-wget
fi

# =============================================================================================
# The bundle: its sections in the order of format v1, then the line that says it is whole.

printf '# kpx-check node facts v1\n'
section_collector
section_hostname
section_machine_id
section_kernel_release
section_os_release
section_nft_version
section_kube_proxy_nft_version
section_iptables_version
section_kernel_config
section_modules
section_modules_builtin
section_modules_available
section_nft_check
section_ipvs
section_kube_ipvs0
section_sysctl
section_services
section_iptables_policies
section_iptables_rules
section_nft_tables
section_nft_chains
section_addresses
section_kube_proxy_mode
section_kube_proxy_metrics
section_kube_proxy_healthz
section_kube_proxy_process
section_nft_json
section_ruleset_flush
section_ipvs_balancers
section_rollback_kernel
section_iptables_nft_incompatible
section_ipsets
section_unavailable
printf '### end\n'

exit 0
