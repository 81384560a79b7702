# The two commands: `make run` and `make test`. Both install what is missing and build first.
SHELL := /bin/bash
NPM ?= npm

.PHONY: run test test-full build install clean bench native-bench

node_modules/.install-stamp: package.json package-lock.json
	@# npm 11 records only this platform's optional binaries in the lockfile, so `npm ci` refuses it; install instead.
	$(NPM) install --no-audit --no-fund
	@touch $@

install: node_modules/.install-stamp

build: install
	$(NPM) run build --silent

run: build
	node dist/main.js

test: build
	$(NPM) test

# Heavy checks (sf1 data, long runs) live here, not in `make test`.
test-full: build
	FULL=1 $(NPM) test

bench: build native-bench
	$(NPM) run bench

native-bench:
	$(MAKE) -C native-bench

clean:
	rm -rf dist node_modules
