#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Installs strbpf's build and test dependencies from Debian 12's packages when missing (we run as root).
set -eu
PKGS="cmake ninja-build g++ clang clang-19 llvm libbpf-dev libelf-dev zlib1g-dev libcli11-dev nlohmann-json3-dev libfmt-dev \
libgtest-dev libgmock-dev libbenchmark-dev libasmjit-dev pkg-config"
missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "setup-deps: installing$missing"
if [ "$(id -u)" != 0 ]; then SUDO=sudo; else SUDO=; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq || true
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing
