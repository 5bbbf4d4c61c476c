# Cairn build and test entry points.
PG_URL ?= postgres://postgres@127.0.0.1:5432/test?sslmode=disable
MYSQL_URL ?= mysql://root@127.0.0.1:3306/test

.PHONY: build run test test-sqlite test-postgres test-mysql fuzz bench

build:
	go build -o bin/cairn ./cmd/cairn

run:
	go run ./cmd/cairn serve

# test runs everything on SQLite, then the database-backed suites on PostgreSQL and MariaDB.
test: test-sqlite test-postgres test-mysql

test-sqlite:
	go test -count=1 -timeout 30m ./...

test-postgres:
	CAIRN_DATABASE_URL='$(PG_URL)' go test -count=1 -timeout 30m ./internal/db/ ./internal/issue/ ./tests/e2e/...

test-mysql:
	CAIRN_DATABASE_URL='$(MYSQL_URL)' go test -count=1 -timeout 30m ./tests/e2e/...

# fuzz runs every Go fuzz target for FUZZTIME each (plain `go test` runs only
# their seed corpora and the regression cases kept in testdata/fuzz).
FUZZTIME ?= 10s
fuzz:
	@set -e; grep -l --include='*_test.go' -r '^func Fuzz' internal cmd | xargs -n1 dirname | sort -u | while read -r pkg; do \
	  for target in $$(grep -h -o '^func Fuzz[A-Za-z0-9_]*' $$pkg/*_test.go | cut -c6-); do \
	    echo "fuzz ./$$pkg $$target ($(FUZZTIME))"; \
	    go test ./$$pkg -run '^$$' -fuzz "^$$target\$$" -fuzztime $(FUZZTIME); \
	  done; \
	done

bench:
	bash bench/run.sh
