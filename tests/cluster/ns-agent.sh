#!/usr/bin/env bash
# Open MPI's launch agent for the cluster fixture (plm_rsh_agent): called as ssh would be,
#   ns-agent.sh [ssh options] HOST COMMAND...
# it runs COMMAND (a shell command line, as ssh gives it to the remote shell) on the fixture host
# with address HOST: in its network namespace, with its own hostname hI. The hosts are listed in
# $CLUSTER_AGENT_HOSTS ("ADDRESS hI NAMESPACE" lines, written by cluster.sh).
set -u
while [[ $# -gt 0 && $1 == -* ]]; do
  case $1 in
  -[bcDEeFIiJLlmOopQRSWw]) shift 2 ;; # ssh options with a value
  *) shift ;;
  esac
done
host=${1:?usage: ns-agent.sh HOST COMMAND...}
shift
hosts=${CLUSTER_AGENT_HOSTS:?ns-agent.sh: CLUSTER_AGENT_HOSTS is not set}
read -r name ns < <(awk -v h="$host" '$1 == h || $2 == h { print $2, $3; exit }' "$hosts")
if [[ -z ${ns:-} ]]; then
  echo "ns-agent.sh: no fixture host '$host' in $hosts" >&2
  exit 255
fi
exec ip netns exec "$ns" unshare --uts sh -c 'hostname "$0" && exec sh -c "$1"' "$name" "$*"
