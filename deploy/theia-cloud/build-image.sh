#!/bin/sh
# Builds the image with buildah, which needs no Docker daemon (Debian: apt-get install buildah):
#   deploy/theia-cloud/build-image.sh registry.example.com/qodeassist-theia:1
#   buildah push registry.example.com/qodeassist-theia:1
# It builds deploy/theia-cloud/Dockerfile from the repository root, honouring .dockerignore; it pulls
# node:22-bookworm and node:22-bookworm-slim, so it needs access to a registry that serves them.
set -eu
if [ $# -ne 1 ]; then
    echo "usage: build-image.sh IMAGE:TAG" >&2
    exit 2
fi
if ! command -v buildah >/dev/null 2>&1; then
    echo "build-image: buildah is not installed; on Debian or Ubuntu: apt-get install buildah (or use docker build, see the Dockerfile)" >&2
    exit 2
fi
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
buildah build --layers --file "$ROOT/deploy/theia-cloud/Dockerfile" --tag "$1" "$ROOT"
echo "build-image: built $1; push it with: buildah push $1"
