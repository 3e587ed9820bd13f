# pgtrial: the two commands of the README's quick start are `make demo` and `make test`.
# Both install PostgreSQL first when it is missing (as root, with apt-get).

GO       ?= go
BIN      := bin/pgtrial
COMMIT   := $(shell git rev-parse --short=12 HEAD 2>/dev/null)
LDFLAGS  := -X main.commit=$(COMMIT)
DEMO_SCALE ?= 20

FUZZTIME ?= 10m

.PHONY: all build demo test test-matrix vet lint fuzz postgres clean

all: build

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/pgtrial

# Ensures PostgreSQL server binaries and pgbench exist (installs them as root if not).
postgres:
	@scripts/ensure-postgres.sh >/dev/null

# The main job on the embedded default: on a throwaway local cluster (started, created
# if needed), the honest protocol of seeds/000 in about 3 minutes (pgtrial demo).
demo: postgres build
	$(BIN) demo -s $(DEMO_SCALE)

vet:
	$(GO) vet ./...

# Static checks, all of which must be clean: go vet, staticcheck (run from the module
# proxy at a pinned version, so go.mod carries no tool dependency), gofmt and go mod tidy.
STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2

lint: vet
	$(GO) run $(STATICCHECK) ./...
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt -l: not formatted:"; echo "$$unformatted"; exit 1; fi
	$(GO) mod tidy -diff

# Everything: vet, unit tests, integration tests against throwaway clusters, fuzz seed corpora.
test: postgres vet
	$(GO) test -race -timeout 15m ./...

# The PostgreSQL version matrix: MATRIX_PKGS' tests against each major of MATRIX, one
# after the other (make test-matrix MATRIX="13 18"). scripts/pg-versions.sh installs the
# npm builds under /var/tmp/pgtrial/pg (15 is the system's) and gives PGTRIAL_PG_BIN and
# LD_LIBRARY_PATH. Ends with one line per version (PASS/FAIL, seconds of go test); fails if
# any failed.
MATRIX      ?= 13 14 15 16 17 18
MATRIX_PKGS ?= ./internal/collect/... ./internal/localpg/... ./internal/pgtest/...

test-matrix:
	@summary=""; failed=0; \
	for v in $(MATRIX); do \
		version="?"; \
		if env=$$(scripts/pg-versions.sh env $$v); then \
			start=$$(date +%s); \
			version=$$(eval "$$env"; "$$PGTRIAL_PG_BIN/postgres" --version | awk '{print $$3}'); \
			echo "== PostgreSQL $$v ($$version): $$(echo $$env | tr '\n' ' ')"; \
			if (eval "$$env"; $(GO) test -race -count=1 $(MATRIX_PKGS)); then res=PASS; else res=FAIL; fi; \
		else \
			echo "== PostgreSQL $$v: scripts/pg-versions.sh env $$v failed"; res=FAIL; start=$$(date +%s); \
		fi; \
		[ $$res = PASS ] || failed=1; \
		summary="$$summary$$(printf 'test-matrix: PostgreSQL %-2s %-7s %s %5ss' $$v "$$version" $$res $$(( $$(date +%s) - start )))\n"; \
	done; \
	printf '%b' "$$summary"; exit $$failed

# Fuzz every target for FUZZTIME each, one after the other (make test runs only their
# seed corpora). A crasher lands in the package's testdata/fuzz and fails make test.
fuzz:
	@for pkg in $$($(GO) list ./...); do \
		for t in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
			echo "fuzz $$pkg $$t ($(FUZZTIME))"; \
			$(GO) test -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
		done; \
	done

clean:
	rm -rf bin
