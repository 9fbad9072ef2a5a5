#!/bin/sh
# The runtime tree of the QodeAssist browser app, as the image holds it: the production build of
# browser-app (its bundled backend, frontend and native modules) and what the backend loads at run
# time outside its bundle — @qodeassist/core (the MCP stdio bridge outside clients start) with its
# production dependencies, and the bundled agents and providers it reads. The Dockerfile runs this in
# its build stage; test/src/e2e/theia-cloud.e2e.ts runs it into a clean folder and starts the app there.
# Usage: build-tree.sh REPO_ROOT DEST   (REPO_ROOT holds a built browser-app: npm start or npm test builds it)
set -eu
ROOT=$(cd "$1" && pwd)
DEST=$2
if [ ! -f "$ROOT/browser-app/lib/backend/main.js" ]; then
    echo "build-tree: $ROOT/browser-app is not built; run npm start (or theia build --mode production in browser-app) first" >&2
    exit 2
fi
rm -rf "$DEST"
mkdir -p "$DEST/browser-app" "$DEST/node_modules/@qodeassist/core"
cp -R "$ROOT/browser-app/lib" "$ROOT/browser-app/src-gen" "$ROOT/browser-app/package.json" "$DEST/browser-app/"
# @qodeassist/core as published: its compiled code and commands, not its sources and specs.
cp -R "$ROOT/qodeassist-core/lib" "$ROOT/qodeassist-core/bin" "$ROOT/qodeassist-core/package.json" "$DEST/node_modules/@qodeassist/core/"
find "$DEST/node_modules/@qodeassist/core/lib" -name '*.spec.js' -delete
# Its production dependencies as npm resolved them (hoisted or nested); links (workspace packages) are followed.
(cd "$ROOT" && npm ls -w qodeassist-core --omit=dev --all --parseable 2>/dev/null) | while read -r path; do
    rel=${path#"$ROOT"/}
    case "$rel" in
        node_modules/@qodeassist/core) continue ;;
        qodeassist-core/node_modules/*) target="$DEST/node_modules/@qodeassist/core/node_modules/${rel#qodeassist-core/node_modules/}" ;;
        node_modules/*) target="$DEST/$rel" ;;
        *) continue ;;
    esac
    mkdir -p "$target"
    cp -RL "$path/." "$target/"
done
echo "build-tree: runtime tree in $DEST"
