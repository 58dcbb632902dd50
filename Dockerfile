# syntax=docker/dockerfile:1
# One image per service: build with --build-arg SERVICE=gateway|catalog|verifier|entitlements|subscriptions|content|sandbox-store
# (the default is gateway).
#   docker build --build-arg SERVICE=catalog -t shopkeeper-catalog .
# Every executable is in every image; SERVICE only picks the one that runs.

ARG SWIFT_IMAGE=swift:6.2-bookworm

# ---- build ----------------------------------------------------------------------------------
FROM ${SWIFT_IMAGE} AS build
WORKDIR /src

# Resolve dependencies first so that this layer is cached across source changes.
COPY Package.swift Package.resolved* ./
RUN swift package resolve

COPY . .
RUN swift build -c release --static-swift-stdlib \
 && bin="$(swift build -c release --static-swift-stdlib --show-bin-path)" \
 && mkdir -p /out \
 && for product in shopkeeper-gateway shopkeeper-catalog shopkeeper-entitlements shopkeeper-subscriptions shopkeeper-content shopkeeper-verifier shopkeeper-sandbox-store shopkeeper; do \
        cp "$bin/$product" /out/; \
    done \
 && find "$bin" -maxdepth 1 -name '*.resources' -exec cp -R {} /out/ \;

# ---- runtime --------------------------------------------------------------------------------
FROM debian:bookworm-slim

RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        ca-certificates libcurl4 tzdata curl \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --user-group --create-home --home-dir /home/shopkeeper --uid 10001 shopkeeper \
 && mkdir -p /var/lib/shopkeeper/content /var/lib/shopkeeper/sandbox /var/lib/shopkeeper/demo \
 && chown 10001:10001 /var/lib/shopkeeper/content /var/lib/shopkeeper/sandbox /var/lib/shopkeeper/demo

COPY --from=build /out/ /usr/local/bin/
# The console's static files (served by the gateway under /console).
COPY --from=build /src/Console/ /usr/local/share/shopkeeper/console/

ARG SERVICE=gateway
ENV SERVICE=${SERVICE} \
    SHOPKEEPER_HOST=0.0.0.0 \
    SHOPKEEPER_CONSOLE_DIR=/usr/local/share/shopkeeper/console

USER 10001:10001
WORKDIR /home/shopkeeper
EXPOSE 8080 8081

HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=6 \
    CMD curl -fsS "http://127.0.0.1:${SHOPKEEPER_PORT:-8080}/health/ready" >/dev/null || exit 1

CMD ["/bin/sh", "-c", "exec /usr/local/bin/shopkeeper-$SERVICE"]
