# Convenience wrapper around meson; see README.md.
#   make demo    install build dependencies (as root, if missing), build, run the demo
#   make check   install test dependencies (as root, if missing), build, run every test
BUILD ?= build
MESON_OPTS ?=

.PHONY: all deps deps-check build demo check clean install

all: build

deps:
	@scripts/install-deps build

deps-check:
	@scripts/install-deps check

$(BUILD)/build.ninja:
	meson setup $(BUILD) $(MESON_OPTS)

build: deps $(BUILD)/build.ninja
	meson compile -C $(BUILD)

demo: build
	@scripts/demo $(BUILD)

check: deps-check
	@scripts/check

install: build
	meson install -C $(BUILD)

clean:
	rm -rf $(BUILD) build-clang build-asan build-fuzz
