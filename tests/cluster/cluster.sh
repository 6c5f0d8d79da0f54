# Hosts in a test (issue 20, item 1): network namespaces on this machine as "hosts" on a private
# bridge, and mpirun across them over TCP only. Sourced by the cluster tests (see README.md):
#
#   source cluster.sh
#   cluster_require              # exit 77 (ctest SKIP) with one line where namespaces cannot be made
#   cluster_up 2                 # hosts h1 h2 at 10.231.0.1, .2; removed again at exit
#   cluster_shape 1gbit 0.5ms    # optional: every host's egress shaped
#   cluster_mpirun "1 1" LOG prog args...   # ranks per host; mpirun runs on h1
#   cluster_kill_host 2          # kill -9 of every process on h2 (its ranks and its daemon)
#   cluster_partition 2          # h2's link goes down: its packets are lost, nothing is closed
#
# Names carry this shell's pid (rc<pid>h1, rc<pid>br, ...), so concurrent fixtures do not meet,
# and a fixture whose shell is gone (killed by a ctest timeout) is swept by the next one.
# The bridge has no address: the root namespace (and the machine's real network) cannot reach
# the hosts, and they cannot reach anything but each other.

CLUSTER_SUBNET=10.231.0
CLUSTER_ID=rc$$
CLUSTER_HOSTS=0
CLUSTER_JOB_PID=""
CLUSTER_DIR=""
CLUSTER_SCRIPTS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

cluster_log() { echo "cluster: $*" >&2; }

# cluster_require: exit 77 (the cluster tests' SKIP_RETURN_CODE) unless namespaces, veth pairs
# and a bridge can be made here (root, CONFIG_VETH, CONFIG_BRIDGE).
cluster_require() {
  local probe=rc$$probe why=""
  if ! command -v ip > /dev/null; then
    why="no 'ip' command (iproute2; scripts/install-deps.sh installs it)"
  elif ! ip netns add "$probe" 2> /dev/null; then
    why="'ip netns add' fails (needs root and network namespaces)"
  elif ! ip link add "${probe}v" type veth peer name "${probe}p" 2> /dev/null; then
    why="no veth pairs (CONFIG_VETH)"
  elif ! ip link add "${probe}b" type bridge 2> /dev/null; then
    why="no bridges (CONFIG_BRIDGE)"
  fi
  ip link del "${probe}b" 2> /dev/null || true
  ip link del "${probe}v" 2> /dev/null || true
  ip netns del "$probe" 2> /dev/null || true
  if [[ -n $why ]]; then
    echo "SKIP: network namespaces cannot be made here: $why"
    exit 77
  fi
}

# cluster_sweep_stale: remove the namespaces and bridges of fixtures whose shell is gone.
cluster_sweep_stale() {
  local ns pid link
  for ns in $(ip netns list 2> /dev/null | awk '{print $1}' | grep -E '^rc[0-9]+h[0-9]+$'); do
    pid=${ns#rc}
    pid=${pid%h*}
    kill -0 "$pid" 2> /dev/null && continue
    cluster_log "removing $ns, left by a fixture that is gone (pid $pid)"
    ip netns pids "$ns" 2> /dev/null | xargs -r kill -9 2> /dev/null || true
    ip netns del "$ns" 2> /dev/null || true
  done
  for link in $(ip -o link show type bridge 2> /dev/null | awk -F': ' '{print $2}' |
    grep -E '^rc[0-9]+br$'); do
    pid=${link#rc}
    pid=${pid%br}
    kill -0 "$pid" 2> /dev/null || ip link del "$link" 2> /dev/null || true
  done
}

cluster_ns() { echo "${CLUSTER_ID}h$1"; }
cluster_addr() { echo "$CLUSTER_SUBNET.$1"; }

# cluster_up N: N hosts h1..hN, each a namespace with lo and eth0 (10.231.0.i/24) on the bridge,
# a scratch directory $CLUSTER_DIR, and a trap that removes everything at exit.
cluster_up() {
  local n=$1 i ns
  cluster_sweep_stale
  trap cluster_down EXIT
  trap 'exit 130' INT TERM
  CLUSTER_DIR=$(mktemp -d "${TMPDIR:-/tmp}/rotor-cluster.XXXXXX")
  ip link add "${CLUSTER_ID}br" type bridge || return 1
  ip link set "${CLUSTER_ID}br" up
  for ((i = 1; i <= n; i++)); do
    ns=$(cluster_ns "$i")
    ip netns add "$ns" || return 1
    CLUSTER_HOSTS=$i
    ip link add "${CLUSTER_ID}v$i" type veth peer name eth0 netns "$ns" || return 1
    ip link set "${CLUSTER_ID}v$i" master "${CLUSTER_ID}br" up
    ip -n "$ns" addr add "$(cluster_addr "$i")/24" dev eth0
    ip -n "$ns" link set lo up
    ip -n "$ns" link set eth0 up
    # TCP gives up on an unanswered peer after ~13 s instead of ~15 min (tcp_retries2 15): a
    # partitioned host's daemon is then declared lost by mpirun (see README.md, Partitions).
    ip netns exec "$ns" sh -c "echo ${CLUSTER_TCP_RETRIES2:-5} > /proc/sys/net/ipv4/tcp_retries2"
    echo "$(cluster_addr "$i") h$i $ns" >> "$CLUSTER_DIR/hosts"
  done
  cluster_log "$n hosts: $(awk '{printf "%s=%s ", $2, $1}' "$CLUSTER_DIR/hosts")(bridge ${CLUSTER_ID}br)"
}

# cluster_down: kill the job and every process on the hosts, remove namespaces, links, scratch.
cluster_down() {
  local i ns
  if [[ -n $CLUSTER_JOB_PID ]]; then
    { kill -9 "$CLUSTER_JOB_PID" && wait "$CLUSTER_JOB_PID"; } 2> /dev/null || true
    CLUSTER_JOB_PID=""
  fi
  for ((i = 1; i <= CLUSTER_HOSTS; i++)); do
    ns=$(cluster_ns "$i")
    ip netns pids "$ns" 2> /dev/null | xargs -r kill -9 2> /dev/null || true
    ip netns del "$ns" 2> /dev/null || true
  done
  ip link del "${CLUSTER_ID}br" 2> /dev/null || true
  if [[ -n $CLUSTER_DIR && -z ${CLUSTER_KEEP:-} ]]; then
    rm -rf "$CLUSTER_DIR"
  fi
  CLUSTER_HOSTS=0
  return 0
}

# cluster_shape RATE [DELAY]: shape every host's egress (so both directions of every path):
# `tc netem rate RATE delay DELAY` where the kernel has netem; else a token bucket (tbf) at RATE
# and no added delay (said on stderr). Prints what was applied.
cluster_shape() {
  local rate=$1 delay=${2:-} i ns applied=""
  for ((i = 1; i <= CLUSTER_HOSTS; i++)); do
    ns=$(cluster_ns "$i")
    if [[ -n $delay ]] &&
      ip netns exec "$ns" tc qdisc add dev eth0 root netem rate "$rate" delay "$delay" \
        2> /dev/null; then
      applied="netem rate $rate delay $delay"
    else
      ip netns exec "$ns" tc qdisc add dev eth0 root tbf rate "$rate" burst 256kb latency 50ms ||
        return 1
      applied="tbf rate $rate${delay:+ (no netem in this kernel: no added delay)}"
    fi
  done
  cluster_log "shaping on every host's eth0: $applied"
  echo "$applied"
}

# cluster_unshape: remove what cluster_shape applied.
cluster_unshape() {
  local i
  for ((i = 1; i <= CLUSTER_HOSTS; i++)); do
    ip netns exec "$(cluster_ns "$i")" tc qdisc del dev eth0 root 2> /dev/null || true
  done
}

# cluster_hostfile "R1 R2 ...": an Open MPI hostfile with Ri slots on host i.
cluster_hostfile() {
  local i=1 r file=$CLUSTER_DIR/hostfile
  : > "$file"
  for r in $1; do
    echo "$(cluster_addr "$i") slots=$r" >> "$file"
    ((i++))
  done
  echo "$file"
}

# The mpirun flags of every cluster job: TCP only, on the fixture's subnet, daemons started by
# the namespace launch agent instead of ssh; then the words of $CLUSTER_MPI_EXTRA, if any.
cluster_mpi_flags() {
  echo --allow-run-as-root --oversubscribe --bind-to none \
    --mca pml ob1 --mca btl tcp,self --mca osc pt2pt \
    --mca btl_tcp_if_include "$CLUSTER_SUBNET.0/24" \
    --mca oob_tcp_if_include "$CLUSTER_SUBNET.0/24" \
    --mca plm rsh --mca plm_rsh_agent "$CLUSTER_SCRIPTS/ns-agent.sh" \
    --mca plm_rsh_no_tree_spawn 1 --mca orte_keep_fqdn_hostnames 1 \
    --mca oob_tcp_keepalive_time 5 --mca oob_tcp_keepalive_intvl 2 --mca oob_tcp_keepalive_probes 3 \
    ${CLUSTER_MPI_EXTRA:-}
}

# cluster_exec I CMD...: run CMD on host I (its namespace, its own hostname hI).
cluster_exec() {
  local i=$1
  shift
  ip netns exec "$(cluster_ns "$i")" unshare --uts \
    sh -c 'hostname "$0" && exec "$@"' "h$i" "$@"
}

# cluster_mpirun_bg "R1 R2 ..." LOG PROGRAM ARGS...: start mpirun on h1 with Ri ranks on host i
# (ranks numbered host by host) in the background, output to LOG; sets CLUSTER_JOB_PID.
cluster_mpirun_bg() {
  local ranks=$1 log=$2 np=0 r hostfile
  shift 2
  for r in $ranks; do np=$((np + r)); done
  hostfile=$(cluster_hostfile "$ranks")
  # shellcheck disable=SC2046 # the flags are words
  CLUSTER_AGENT_HOSTS=$CLUSTER_DIR/hosts OMPI_ALLOW_RUN_AS_ROOT=1 \
    OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 cluster_exec 1 mpirun $(cluster_mpi_flags) \
    -x CLUSTER_AGENT_HOSTS --hostfile "$hostfile" --map-by slot -np "$np" "$@" > "$log" 2>&1 &
  CLUSTER_JOB_PID=$!
}

# cluster_mpirun "R1 R2 ..." LOG PROGRAM ARGS...: the same in the foreground; its exit status.
cluster_mpirun() {
  local rc=0
  cluster_mpirun_bg "$@"
  wait "$CLUSTER_JOB_PID" || rc=$?
  CLUSTER_JOB_PID=""
  return $rc
}

# cluster_host_pids I: the pids of the processes on host I.
cluster_host_pids() { ip netns pids "$(cluster_ns "$1")"; }

# cluster_rank_pids I: the pids of the MPI ranks on host I (processes with a rank in their
# environment), one per line as "PID RANK".
cluster_rank_pids() {
  local p r
  for p in $(cluster_host_pids "$1"); do
    r=$(tr '\0' '\n' < "/proc/$p/environ" 2> /dev/null | sed -n 's/^OMPI_COMM_WORLD_RANK=//p')
    [[ -n $r ]] && echo "$p $r"
  done
}

# cluster_kill_host I: kill -9 every process on host I at once (its ranks and its orted), as a
# host that loses power would.
cluster_kill_host() {
  cluster_host_pids "$1" | xargs -r kill -9
}

# cluster_partition I: take host I's link down at the bridge: its packets are dropped in both
# directions and no connection is closed (no FIN, no RST), as when a switch port or cable fails.
cluster_partition() {
  ip link set "${CLUSTER_ID}v$1" down
}

# cluster_wait_for PATTERN FILE SECONDS: wait until FILE has a line matching PATTERN.
cluster_wait_for() {
  local i
  for ((i = 0; i < $3 * 10; i++)); do
    grep -Eq "$1" "$2" 2> /dev/null && return 0
    sleep 0.1
  done
  return 1
}
