# The OpenPush image: `openpush serve` and `openpush worker` against a PostgreSQL outside the
# container (OPENPUSH_DATABASE_URL). `openpush dev` needs the PostgreSQL server binaries (initdb,
# pg_ctl), which this image leaves out on purpose; run it from a checkout instead (`make run`).
#
#   docker build -t openpush:latest .
#   docker run -e OPENPUSH_DATABASE_URL=postgresql://… -e OPENPUSH_ORG_API_KEY=… -p 8080:8080 openpush:latest
#   docker run … openpush:latest worker
#
# DockerImageTests checks this file against the built binary: every shared library `ldd` lists
# comes from a package the runtime stage installs (or from its dependencies or the base image),
# and every path copied from the build context exists.

# Build: the Swift 6.3 toolchain plus the -dev packages of the C libraries (the Makefile's
# DEBIAN_PACKAGES without the PostgreSQL server and the command-line tools).
FROM swift:6.3-bookworm AS build
RUN apt-get update -q \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
        libpq-dev libssl-dev libnghttp2-dev libmicrohttpd-dev libcurl4-openssl-dev zlib1g-dev pkg-config \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# The whole context (.dockerignore keeps .build/ and local state out): Package.swift names
# targets under Sources/, Tests/ and bench/, and SwiftPM wants each of their folders present.
COPY . .
# --static-swift-stdlib links the Swift runtime and Foundation into the binary, so the runtime
# stage needs no copy of the toolchain's /usr/lib/swift/linux/*.so (92 MB in Swift 6.3.1, all
# of them, which would have to come from the exact toolchain that built the binary) and only the
# C libraries below; the linker keeps only what the binary uses (the release binary: 85 MB).
RUN swift build -c release --static-swift-stdlib --product openpush

# Runtime: Debian 12 slim with the runtime packages of the C libraries the binary links
# (libpq, libmicrohttpd, libnghttp2, OpenSSL, libcurl, zlib) and the CA certificates for APNs and
# webhooks. libc6, libgcc-s1 and libstdc++6 (the statically linked Swift runtime needs the last
# two) come with the base image.
FROM debian:bookworm-slim
RUN apt-get update -q \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
        libpq5 libmicrohttpd12 libnghttp2-14 libssl3 libcurl4 zlib1g ca-certificates \
    && rm -rf /var/lib/apt/lists/*
# A user of its own, named by number in USER so that a runtime can tell it is not root without
# reading /etc/passwd (Kubernetes' runAsNonRoot).
RUN groupadd --system --gid 10001 openpush \
    && useradd --system --uid 10001 --gid 10001 --no-create-home --home-dir /nonexistent \
        --shell /usr/sbin/nologin openpush
COPY --from=build /src/.build/release/openpush /usr/local/bin/openpush
COPY migrations/ /usr/share/openpush/migrations/
COPY openapi/ /usr/share/openpush/openapi/
COPY web/ /usr/share/openpush/web/
# Listens on every interface: 127.0.0.1 (the default outside a container) is unreachable from
# outside it.
ENV OPENPUSH_RESOURCES_DIR=/usr/share/openpush \
    OPENPUSH_LISTEN=0.0.0.0:8080
USER 10001:10001
EXPOSE 8080
ENTRYPOINT ["openpush"]
CMD ["serve"]
