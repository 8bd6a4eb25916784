#!/usr/bin/env bash
# Builds bot-host/Dockerfile into a local image with buildah, without any container registry:
# the base image the Dockerfile names (node:22-bookworm-slim) is stood in for by a minimal
# Debian bookworm (debootstrap, from Debian's mirror) plus this machine's node and npm, committed
# under that name so `buildah bud --pull=never` resolves it. The Dockerfile's own steps still
# fetch Debian packages (Chromium, espeak-ng, tini) and three npm packages over the network.
#
# Needs root, buildah and debootstrap (apt-get install buildah debootstrap). Not part of
# `npm test`: it takes minutes. Settings: IMAGE (default localhost/meetbot-host:local),
# STORAGE_DRIVER (default vfs: works without overlayfs), ISOLATION (default chroot: works
# without user namespaces), DEBIAN_MIRROR, REBUILD_BASE=1 to make the stand-in again,
# LOCAL_CAS (default /usr/local/share/ca-certificates): this machine's own certificate
# authorities, put into the stand-in so that the build's npm install works behind a
# TLS-inspecting proxy; LOCAL_CAS= (empty) leaves them out. An image built from the real base
# (docker build) never has them.
# Prints the build time and the image size.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
dockerfile="$root/bot-host/Dockerfile"
image=${IMAGE:-localhost/meetbot-host:local}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
buildah=(buildah --storage-driver "${STORAGE_DRIVER:-vfs}")

for tool in buildah debootstrap; do
	command -v "$tool" >/dev/null || { echo "build-image: $tool is not installed (apt-get install $tool)" >&2; exit 1; }
done
[ "$(id -u)" = 0 ] || { echo "build-image: run as root (debootstrap and buildah's vfs storage need it)" >&2; exit 1; }

base=$(awk 'toupper($1) == "FROM" { print $2; exit }' "$dockerfile")
# Short names resolve to docker.io/library/… in buildah's local storage.
case "$base" in */*) base_ref=$base ;; *) base_ref="docker.io/library/$base" ;; esac

node_bin=$(readlink -f "$root/node_modules/.bin/node")
node_major=$("$node_bin" -p 'process.versions.node.split(".")[0]')
case "$base" in "node:$node_major-"*) ;; *) echo "build-image: $base does not match this machine's node $node_major" >&2; exit 1 ;; esac
npm_dir=${NPM_DIR:-$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")}
[ -f "$npm_dir/package.json" ] || { echo "build-image: npm not found (set NPM_DIR to npm's package folder)" >&2; exit 1; }

started=$(date +%s)
if [ -n "${REBUILD_BASE:-}" ] || ! "${buildah[@]}" inspect --type image "$base_ref" >/dev/null 2>&1; then
	echo "build-image: making a stand-in for $base from $mirror"
	rootfs=$(mktemp -d /var/tmp/bookworm-rootfs.XXXXXX)
	trap 'rm -rf "$rootfs"' EXIT
	debootstrap --variant=minbase bookworm "$rootfs" "$mirror" >/dev/null
	# As in the official image: node and npm under /usr/local, a `node` user with uid 1000.
	install -m 0755 "$node_bin" "$rootfs/usr/local/bin/node"
	mkdir -p "$rootfs/usr/local/lib/node_modules"
	cp -a "$npm_dir" "$rootfs/usr/local/lib/node_modules/npm"
	ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
	ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
	local_cas=${LOCAL_CAS-/usr/local/share/ca-certificates}
	if [ -n "$local_cas" ] && compgen -G "$local_cas/*.crt" >/dev/null; then
		# The Dockerfile's ca-certificates install adds these to the system bundle; npm reads that.
		echo "build-image: the stand-in trusts this machine's CAs in $local_cas"
		mkdir -p "$rootfs/usr/local/share/ca-certificates" "$rootfs/usr/local/etc"
		cp "$local_cas"/*.crt "$rootfs/usr/local/share/ca-certificates/"
		echo "cafile=/etc/ssl/certs/ca-certificates.crt" >"$rootfs/usr/local/etc/npmrc"
	fi
	chroot "$rootfs" groupadd --gid 1000 node
	chroot "$rootfs" useradd --uid 1000 --gid node --shell /bin/bash --create-home node
	rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
	container=$("${buildah[@]}" from scratch)
	mount=$("${buildah[@]}" mount "$container")
	cp -a "$rootfs/." "$mount/"
	"${buildah[@]}" umount "$container" >/dev/null
	"${buildah[@]}" config --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		--env NODE_VERSION="$("$node_bin" -p process.versions.node)" --cmd node "$container"
	"${buildah[@]}" commit --quiet --rm "$container" "$base_ref" >/dev/null
	rm -rf "$rootfs"
	trap - EXIT
	echo "build-image: base ready in $(($(date +%s) - started)) s"
fi

build_started=$(date +%s)
# Docker format: an OCI image drops the HEALTHCHECK.
"${buildah[@]}" bud --pull=never --isolation "${ISOLATION:-chroot}" --layers=false --format docker \
	--build-arg BOT_HOST_VERSION="$(git -C "$root" describe --always --dirty 2>/dev/null || echo dev)" \
	-f "$dockerfile" -t "$image" "$root"
size=$("${buildah[@]}" images --format '{{.Size}}' "$image")
echo "build-image: $image built in $(($(date +%s) - build_started)) s (total $(($(date +%s) - started)) s); size $size"
"${buildah[@]}" images "$image"

# Smoke run (SMOKE=0 skips): the image's entrypoint as its own user, with the settings a
# Deployment gives it; /health must answer, node must not run as root, SIGTERM must reach it.
[ "${SMOKE:-1}" = 0 ] && exit 0
port=${SMOKE_PORT:-18150}
smoke=$("${buildah[@]}" from --pull=never "$image")
trap '"${buildah[@]}" rm "$smoke" >/dev/null 2>&1 || true' EXIT
entrypoint=$("${buildah[@]}" inspect --type image --format '{{range .Docker.Config.Entrypoint}}{{.}} {{end}}{{range .Docker.Config.Cmd}}{{.}} {{end}}' "$image")
# shellcheck disable=SC2086 # the entrypoint and command are words
"${buildah[@]}" run --isolation "${ISOLATION:-chroot}" --user node \
	--env BOT_HOST_PORT="$port" --env BOT_HOST_ID=smoke-host --env BOT_HOST_SLOTS=2 --env BOT_HOST_CREDENTIAL=smoke-only \
	--env BOT_HOST_GATEWAY_URL=http://127.0.0.1:9 --env SPAWN_QUEUE_URL=http://127.0.0.1:9/queue --env BOT_HOST_REPORT_S=3600 \
	"$smoke" -- $entrypoint &
runner=$!
health=""
for _ in $(seq 1 30); do
	health=$("$node_bin" -e "fetch('http://127.0.0.1:$port/health').then(async r => console.log(r.status, await r.text()), () => {})")
	[ -n "$health" ] && break
	sleep 1
done
# The host is a descendant of this buildah run (buildah → chroot exec → tini → node).
descendants() { for child in $(pgrep -P "$1"); do echo "$child"; descendants "$child"; done; }
host_pid=""
for pid in $(descendants "$runner"); do
	case "$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)" in "node bot-host/main.ts"*) host_pid=$pid ;; esac
done
echo "build-image: smoke /health → ${health:-no answer}"
echo "build-image: smoke node runs as uid $(awk '/^Uid:/ { print $2 }' "/proc/$host_pid/status" 2>/dev/null || echo '?')"
init_pid=$(awk '/^PPid:/ { print $2 }' "/proc/$host_pid/status" 2>/dev/null || true)
echo "build-image: smoke parent of node: $(tr '\0' ' ' <"/proc/$init_pid/cmdline" 2>/dev/null || echo '?')"
[ -n "$init_pid" ] && kill -TERM "$init_pid"
wait "$runner" && echo "build-image: smoke SIGTERM → drained and exited 0" || echo "build-image: smoke exit $?"
case "$health" in 200*) ;; *) exit 1 ;; esac
