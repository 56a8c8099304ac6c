#!/usr/bin/env bash
# Prints, one per line and sorted, the Debian packages a runtime image must install for the
# given programs: the owners of the libraries they link directly (apt pulls in the rest),
# plus the owner of every library chosen through Debian alternatives, which apt would not
# reproduce. LibTorch comes from the project environment (torch from PyPI, in $TORCHSCAN_VENV,
# default /opt/torchscan/venv): its libraries are no Debian package's, and the image copies
# that environment's torch/lib and nvidia/ folders instead (Containerfile); they are named
# on stderr. Usage:
#   deploy/container/runtime-packages.sh /usr/local/bin/torchscand ... > packages.txt
# Exits 1 naming the program or library when a library is missing or no package owns it.
set -euo pipefail

if [[ $# -eq 0 ]]; then
  echo "usage: runtime-packages.sh PROGRAM..." >&2
  exit 2
fi

venv=$(readlink -f "${TORCHSCAN_VENV:-/opt/torchscan/venv}")
declare -A wanted=()  # library path as ldd prints it -> 1
declare -A from_venv=()  # the same, for the project environment's libraries
for program in "$@"; do
  if [[ ! -x "$program" ]]; then
    echo "runtime-packages: $program is not an executable file" >&2
    exit 1
  fi
  resolved=$(ldd "$program")
  if grep -q 'not found' <<<"$resolved"; then
    echo "runtime-packages: $program: $(grep -m1 'not found' <<<"$resolved" | xargs)" >&2
    exit 1
  fi
  needed=$(readelf -d "$program" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
  while read -r soname _ path _; do
    [[ "$path" == /* ]] || continue
    if [[ "$(readlink -f "$path")" == "$venv"/* ]]; then
      from_venv[$path]=1
    elif grep -qxF "$soname" <<<"$needed" || [[ "$(readlink "$path")" == /etc/alternatives/* ]]; then
      wanted[$path]=1
    fi
  done <<<"$resolved"
done

for path in "${!from_venv[@]}"; do
  echo "runtime-packages: from the project environment, not a package: $path" >&2
done

# dpkg's database names a file by its path before /usr was merged (/lib/...), or by its
# real path (alternatives): ask for every form in one query (each query reads the database).
forms() { local real; real=$(readlink -f "$1"); printf '%s\n' "$1" "${1#/usr}" "$real" "${real#/usr}" | sort -u; }
queries=()
for path in "${!wanted[@]}"; do
  mapfile -t -O "${#queries[@]}" queries < <(forms "$path")
done
owners=$(dpkg-query -S "${queries[@]}" 2>/dev/null || true)
for path in "${!wanted[@]}"; do
  owner=$(awk -F': ' 'NR == FNR { form[$0] = 1; next } ($2 in form) { sub(/:.*/, "", $1); print $1; exit }' \
          <(forms "$path") - <<<"$owners")
  if [[ -z "$owner" ]]; then
    echo "runtime-packages: no Debian package owns $path" >&2
    exit 1
  fi
  echo "$owner"
done | sort -u
