# Shared setup steps for scripts/serve and scripts/test; sourced, not run.

setup_python() {  # setup_python [EXTRA]: a venv in .venv with the package installed (editable)
  if [ ! -x .venv/bin/python ]; then
    echo "==> creating .venv" >&2
    python3 -m venv .venv
  fi
  local spec="."
  [ -n "${1:-}" ] && spec=".[$1]"
  echo "==> installing fitproof${1:+ with [$1]} into .venv" >&2
  .venv/bin/python -m pip install --quiet --disable-pip-version-check --editable "$spec"
  # scripts/build's tools: `python -m build`, with the setuptools the build asks for (no isolation)
  .venv/bin/python -m pip install --quiet --disable-pip-version-check "build>=1.2" "setuptools>=77"
}

setup_web() {  # the pinned Pyodide, gpt-tokenizer's rank files, CodeMirror and axe-core, from package-lock.json
  # The pinned packages' versions from package-lock.json against what node_modules holds.
  local check='import json, sys
lock = json.load(open("package-lock.json"))["packages"]
for name in ("pyodide", "gpt-tokenizer", "codemirror", "@codemirror/lang-json", "@codemirror/view", "axe-core"):
    try:
        have = json.load(open(f"node_modules/{name}/package.json"))["version"]
    except OSError:
        have = None
    if have != lock[f"node_modules/{name}"]["version"]:
        sys.exit(1)'
  if ! python3 -c "$check" || [ ! -f node_modules/pyodide/pyodide.asm.wasm ] \
     || [ ! -f node_modules/gpt-tokenizer/data/o200k_base.tiktoken ] \
     || [ ! -f node_modules/@codemirror/view/dist/index.js ] || [ ! -f node_modules/axe-core/axe.min.js ]; then
    echo "==> installing the pinned Pyodide, OpenAI rank files, CodeMirror and axe-core (npm ci)" >&2
    npm ci --no-audit --no-fund --loglevel=error
  fi
}

setup_chromium() {  # Debian's Chromium for the browser tests, unless another one is named
  local chromium="${FITPROOF_CHROMIUM:-/usr/bin/chromium}"
  if [ ! -x "$chromium" ]; then
    if [ -n "${FITPROOF_CHROMIUM:-}" ]; then
      echo "FITPROOF_CHROMIUM=$chromium is not an executable" >&2
      return 1
    fi
    echo "==> installing Debian's chromium (apt-get)" >&2
    local sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium >/dev/null
  fi
}
