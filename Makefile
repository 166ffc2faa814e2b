# The two commands: `make run` and `make test`. Both install what they need first.
SHELL := /bin/bash
# binutils: readelf, with which DockerImageTests reads the libraries the binary names.
DEBIAN_PACKAGES := libpq-dev libssl-dev libnghttp2-dev libmicrohttpd-dev libcurl4-openssl-dev zlib1g-dev postgresql-15 pkg-config curl openssl ca-certificates binutils
BENCH_PACKAGES := wrk nghttp2-client python3
# OneSignal's Python client for the compatibility suite, in a virtual environment of Debian's
# python3 (not whatever `python3` comes first on PATH), pinned by Tests/compat/requirements.txt.
COMPAT_PACKAGES := python3 python3-venv
# Headless Chromium and its WebDriver for the browser suites (only `make test` needs them).
BROWSER_PACKAGES := chromium chromium-driver
# PgBouncerScaleOutTests runs Debian's pgbouncer (/usr/sbin/pgbouncer) in transaction pooling.
SCALE_PACKAGES := pgbouncer
COMPAT_VENV := .build/compat-venv
COMPAT_REQUIREMENTS := Tests/compat/requirements.txt
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: run test build release deps compat-venv browser-deps bench clean

run: deps release
	.build/release/openpush dev

# Three groups run after the parallel run, so their load does not upset the timing of the rest
# on a small machine: first the heavy suites (the compatibility suite with its own processes, the
# 100,000-device send isolation, the 100,000 events behind 1,000 idle webhook endpoints, the
# headless-Chromium suites, the spawned `openpush dev`, and
# the 20,000-50,000-push deliveries through child workers that are stopped or killed midway),
# then the PgBouncer deployment of two servers and two workers on its own (beside the heavy
# group, a CI run saw one of its sends wait more than 30 s for an answer), then, alone, the
# suites that check timing rules (push intervals, webhook timeouts, the HTTP client, one app's
# one-user sends beside another's fan-out on a slow APNs, Android deliveries, TLS handshakes
# with client certificates), which any load starves.
HEAVY_SUITES := OneSignalPythonClientTests|ExportMemoryTests|WebhookIdleEndpointsTests|SendIsolationTests|BrowserHarnessTests|DocsBrowserTests|ConsoleBrowserTests|DevQuickstartTests|DeliveryResilienceTests|DeliveryGuaranteesTests|WebSDKBrowserTests
SCALE_SUITES := PgBouncerScaleOutTests
TIMING_SUITES := PushIntervalsTests|TemplateIsolationTests|WebhookDispatcherTests|HTTPClientTests|CompactEventsTests|TransactionalFairnessTests|FCMDeliveryTests|CertificateDeliveryTests|APNSCertificateTransportTests|CertificateLifecycleTests|WebPushDeliveryTests|WebPushDeviceTransportTests|FCMHTTP2ClientTests|DeliveryWakeupTests|StatsByServiceTests|MetricsByPushServiceRefusalTests
AFTER_SUITES := $(HEAVY_SUITES)|$(SCALE_SUITES)|$(TIMING_SUITES)
test: deps compat-venv browser-deps
	@$(call install-missing,$(SCALE_PACKAGES))
	swift build --build-tests
	swift test --skip-build --skip "$(AFTER_SUITES)"
	swift test --skip-build --filter "$(HEAVY_SUITES)"
	swift test --skip-build --filter "$(SCALE_SUITES)"
	swift test --skip-build --filter "$(TIMING_SUITES)"

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
	bench/fcm.sh
	bench/webpush.sh
	bench/fairness.sh
	bench/transactional.sh
	bench/register.sh
	bench/idle.sh
	bench/coalescing.sh
	bench/webhooks.sh
	bench/scale.sh
	bench/mixed.sh

# Installs the Debian packages $(1) only when one is missing, so repeated runs stay fast and offline.
install-missing = if ! dpkg -s $(1) >/dev/null 2>&1; then \
		echo "installing: $(1)"; \
		$(SUDO) apt-get update -q && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -q --no-install-recommends $(1); \
	fi

deps:
	@$(call install-missing,$(DEBIAN_PACKAGES))

browser-deps:
	@$(call install-missing,$(BROWSER_PACKAGES))

# Created when missing and again when the pins change; otherwise nothing is downloaded.
compat-venv: $(COMPAT_VENV)/.installed

$(COMPAT_VENV)/.installed: $(COMPAT_REQUIREMENTS)
	@$(call install-missing,$(COMPAT_PACKAGES))
	rm -rf $(COMPAT_VENV)
	/usr/bin/python3 -m venv $(COMPAT_VENV)
	$(COMPAT_VENV)/bin/pip install --quiet --disable-pip-version-check --no-input --require-virtualenv \
		-r $(COMPAT_REQUIREMENTS)
	touch $@

clean:
	swift package clean
