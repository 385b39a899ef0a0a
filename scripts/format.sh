#!/usr/bin/env bash
# One format per language: clang-format (.clang-format) for C, google-java-format through Spotless
# (pom.xml) for Java. `scripts/format.sh` rewrites the tree. `scripts/format.sh --check` fails,
# listing the files, if a C file is not formatted (scripts/test.sh runs it first); the Java check
# is Spotless's, bound to `mvn verify`.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-apply}
mapfile -t c_files < <(git ls-files --cached --others --exclude-standard \
  'native/*.c' 'native/*.h' 'bench/*.c' 'bench/*.h' 'test/*.c' 'test/*.h')
if [ "$mode" = --check ]; then
  bad=()
  for f in "${c_files[@]}"; do
    [ -f "$f" ] || continue # deleted in the work tree, not yet staged
    clang-format --style=file "$f" | cmp -s - "$f" || bad+=("$f")
  done
  if ((${#bad[@]})); then
    echo "C files not formatted (run scripts/format.sh): ${bad[*]}" >&2
    exit 1
  fi
  echo "clang-format: ${#c_files[@]} C files formatted"
else
  clang-format --style=file -i "${c_files[@]}"
  mvn -B -q spotless:apply
fi
