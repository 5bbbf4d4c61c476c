# Cairn build and test entry points.
PG_URL ?= postgres://postgres@127.0.0.1:5432/test?sslmode=disable
MYSQL_URL ?= mysql://root@127.0.0.1:3306/test

.PHONY: build run test test-sqlite test-postgres test-mysql test-pam fuzz bench release deb test-deb print-version

build:
	go build -o bin/cairn ./cmd/cairn

run:
	go run ./cmd/cairn serve

# test runs everything on SQLite and the database-backed suites on PostgreSQL
# and MariaDB, the three at once: each test has its own server and database,
# and the suites spend much of their time waiting on git and the databases.
# Each suite's output is printed whole when it ends.
test:
	@$(MAKE) --no-print-directory -j3 -O test-sqlite test-postgres test-mysql

test-sqlite:
	go test -count=1 -timeout 70m ./...

test-postgres:
	CAIRN_DATABASE_URL='$(PG_URL)' go test -count=1 -timeout 70m ./internal/db/ ./internal/issue/ ./internal/queue/ ./internal/webhook/ ./tests/e2e/...

test-mysql:
	CAIRN_DATABASE_URL='$(MYSQL_URL)' go test -count=1 -timeout 70m ./internal/queue/ ./internal/webhook/ ./tests/e2e/...

# test-pam builds with PAM (cgo, libpam0g-dev) and runs the PAM source's
# tests; the e2e test adds a local account and a PAM service, so it needs root.
test-pam:
	CGO_ENABLED=1 go vet -tags pam ./internal/authsource/pam/ ./cmd/cairn/ ./tests/e2e/
	CGO_ENABLED=1 go test -count=1 -tags pam -run 'TestPAM' ./internal/authsource/pam/ ./tests/e2e/

# fuzz runs every Go fuzz target for FUZZTIME each (plain `go test` runs only
# their seed corpora and the regression cases kept in testdata/fuzz); see
# tests/fuzz.sh for how it treats Go 1.26's fuzztime deadline race.
FUZZTIME ?= 10s
fuzz:
	FUZZTIME=$(FUZZTIME) bash tests/fuzz.sh

bench:
	bash bench/run.sh

# Release builds. VERSION is Cairn's own (cmd/cairn/version.go); COMMIT,
# COMMIT_DATE and COMMIT_MODIFIED name the source in `cairn --version` when the
# toolchain stamps none (GOFLAGS=-buildvcs=false, a tree without .git).
VERSION := $(shell sed -n 's/^const version = "\(.*\)"$$/\1/p' cmd/cairn/version.go)
COMMIT ?= $(shell git rev-parse HEAD 2>/dev/null)
COMMIT_DATE ?= $(shell TZ=UTC git log -1 --date=format-local:%Y-%m-%dT%H:%M:%SZ --format=%cd 2>/dev/null)
COMMIT_MODIFIED ?= $(shell git status --porcelain --untracked-files=no 2>/dev/null | grep -q . && echo true || echo false)
RELEASE_LDFLAGS = -s -w -X main.commit=$(COMMIT) -X main.commitDate=$(COMMIT_DATE) -X main.commitModified=$(COMMIT_MODIFIED)
RELEASE_ARCHS ?= amd64 arm64
DEB_ARCH ?= amd64
# nfpm (Debian package builder) runs through the Go toolchain at a pinned
# version, outside Cairn's own go.mod.
NFPM ?= go run github.com/goreleaser/nfpm/v2/cmd/nfpm@v2.45.2

# release_binary builds the static, trimmed binary for linux/$(1) into dist/.
release_binary = CGO_ENABLED=0 GOOS=linux GOARCH=$(1) go build -trimpath -ldflags '$(RELEASE_LDFLAGS)' -o dist/cairn-$(VERSION)-linux-$(1) ./cmd/cairn

print-version:
	@echo $(VERSION)

# release writes dist/cairn-<version>-linux-<arch> and their SHA-256 sums.
release:
	@mkdir -p dist
	rm -f dist/cairn-$(VERSION)-linux-* dist/cairn-$(VERSION)-SHA256SUMS
	$(foreach arch,$(RELEASE_ARCHS),$(call release_binary,$(arch)) &&) true
	cd dist && sha256sum cairn-$(VERSION)-linux-* > cairn-$(VERSION)-SHA256SUMS
	cat dist/cairn-$(VERSION)-SHA256SUMS

# deb writes dist/cairn_<version>_<arch>.deb (packaging/nfpm.yaml).
deb:
	@mkdir -p dist
	$(call release_binary,$(DEB_ARCH))
	CAIRN_VERSION=$(VERSION) DEB_ARCH=$(DEB_ARCH) $(NFPM) package --config packaging/nfpm.yaml --packager deb --target dist/cairn_$(VERSION)_$(DEB_ARCH).deb

# test-deb builds the package, installs it, starts Cairn as the unit would and
# purges it again (root only; see packaging/test-deb.sh).
test-deb:
	bash packaging/test-deb.sh
