# shellcheck shell=bash
# The deployment checks' Python tools (deploy/requirements.txt, pinned) in .build/deploy-venv, installed when missing
# or when the requirements changed. Source it, then call deploy_venv; it sets DEPLOY_PY (the venv's python) and
# DEPLOY_VENV.

deploy_venv() {
    local root
    root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
    DEPLOY_VENV="$root/.build/deploy-venv"
    # shellcheck disable=SC2034  # for the scripts that source this file
    DEPLOY_PY="$DEPLOY_VENV/bin/python"
    if cmp -s "$root/deploy/requirements.txt" "$DEPLOY_VENV/requirements.txt" 2>/dev/null; then
        return 0
    fi
    printf '%s\n' "[deploy] installing the checks' tools (deploy/requirements.txt) into .build/deploy-venv" >&2
    rm -rf "$DEPLOY_VENV"
    if ! python3 -m venv "$DEPLOY_VENV" 2>/dev/null; then
        # shellcheck source=../../scripts/lib/postgres.sh
        . "$root/scripts/lib/postgres.sh"
        sk_apt_install python3-venv
        rm -rf "$DEPLOY_VENV"
        python3 -m venv "$DEPLOY_VENV"
    fi
    "$DEPLOY_VENV/bin/pip" install --quiet --disable-pip-version-check -r "$root/deploy/requirements.txt"
    cp "$root/deploy/requirements.txt" "$DEPLOY_VENV/requirements.txt"
}
