#!/usr/bin/env bash
# Installs the Debian packages ftsim needs, only if some are missing.
# Used by both `make run` and `make test` (the one install list of the project).
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  libsimgrid-dev libboost-graph-dev nlohmann-json3-dev libcli11-dev catch2 libfmt-dev
  librapidcheck-dev pybind11-dev libopenmpi-dev openmpi-bin libopenblas-dev liblapacke-dev
  python3-dev python3-jsonschema python3-pytest python3-numpy python3-pandas
  python3-matplotlib python3-nbclient python3-nbformat python3-ipykernel python3-networkx
  starpu-examples libmetis-dev libzstd-dev libxxhash-dev liblzma-dev python3-scipy time
)

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "ftsim: installing missing Debian packages: ${missing[*]}" >&2
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then sudo_cmd=(sudo); else
    echo "ftsim: not root and no sudo; please install: ${missing[*]}" >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
