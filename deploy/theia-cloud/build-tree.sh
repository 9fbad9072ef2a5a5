#!/bin/sh
# The runtime tree of the QodeAssist browser app, as the image holds it. The Dockerfile's build stage
# runs exactly this, and so does test/src/e2e/theia-cloud-image.e2e.ts (on a clean `git archive`):
#   1. build-browser-app.mjs: the project's own build steps (npm run build's, less the Electron app);
#   2. assemble-tree.mjs: the app's bundle and the runtime workspaces as published, with their
#      production dependencies from `npm ci --omit=dev` against the repository's lock;
#   3. check-tree.mjs: fails unless the bundled agents, providers and core load from the tree and the
#      backend starts and answers.
# Usage: build-tree.sh REPO_ROOT DEST
set -eu
if [ $# -ne 2 ]; then
    echo "usage: build-tree.sh REPO_ROOT DEST" >&2
    exit 2
fi
ROOT=$(cd "$1" && pwd)
HERE=$ROOT/deploy/theia-cloud
(cd "$ROOT" && node "$HERE/build-browser-app.mjs")
node "$HERE/assemble-tree.mjs" "$ROOT" "$2"
node "$HERE/check-tree.mjs" "$2"
