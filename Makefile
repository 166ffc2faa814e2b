# The two commands: `make run` and `make test`. Both install what they need first.
SHELL := /bin/bash
DEBIAN_PACKAGES := libpq-dev libssl-dev libnghttp2-dev libmicrohttpd-dev postgresql-15 pkg-config curl openssl ca-certificates
BENCH_PACKAGES := wrk nghttp2-client python3
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: run test build release deps bench clean

run: deps release
	.build/release/openpush dev

test: deps
	swift build --build-tests
	swift test --skip-build

build: deps
	swift build

release: deps
	swift build -c release

bench: deps release
	@dpkg -s $(BENCH_PACKAGES) >/dev/null 2>&1 || $(SUDO) apt-get install -y -q $(BENCH_PACKAGES)
	bench/http.sh
	bench/delivery.sh
	bench/apns-client.sh
	bench/fanout.sh
	bench/fairness.sh
	bench/idle.sh

# Installs the Debian packages only when one is missing, so repeated runs stay fast and offline.
deps:
	@if ! dpkg -s $(DEBIAN_PACKAGES) >/dev/null 2>&1; then \
		echo "installing: $(DEBIAN_PACKAGES)"; \
		$(SUDO) apt-get update -q && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -q --no-install-recommends $(DEBIAN_PACKAGES); \
	fi

clean:
	swift package clean
