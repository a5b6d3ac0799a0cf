#!/usr/bin/env bash
# Installs what the --launcher tests start themselves: Debian's openssh-server (sshd on
# 127.0.0.1, test/launcher.test.js) and Slurm with munge (a one-node cluster,
# test/slurm.test.js). The packages' own services are not started. Idempotent: does
# nothing when all are there.
set -euo pipefail

need=()
[[ -x /usr/sbin/sshd ]] || need+=(openssh-server)
[[ -x /usr/sbin/slurmctld ]] || need+=(slurmctld)
[[ -x /usr/sbin/slurmd ]] || need+=(slurmd)
command -v srun >/dev/null || need+=(slurm-client)
[[ -x /usr/sbin/munged ]] || need+=(munge)

if ((${#need[@]})); then
  sudo=""
  [[ "$(id -u)" == 0 ]] || sudo="sudo"
  echo "setup-launchers: installing ${need[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
else
  echo "setup-launchers: sshd, slurmctld, slurmd, srun and munged are present"
fi
