# pgtrial: the two commands of the README's quick start are `make demo` and `make test`.
# Both install PostgreSQL first when it is missing (as root, with apt-get).

GO       ?= go
BIN      := bin/pgtrial
COMMIT   := $(shell git rev-parse --short=12 HEAD 2>/dev/null)
LDFLAGS  := -X main.commit=$(COMMIT)
DEMO_SCALE ?= 10

FUZZTIME ?= 10m

.PHONY: all build demo test vet fuzz postgres clean

all: build

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/pgtrial

# Ensures PostgreSQL server binaries and pgbench exist (installs them as root if not).
postgres:
	@scripts/ensure-postgres.sh >/dev/null

# The main job on the embedded default: a throwaway local cluster with a pgbench schema.
demo: postgres build
	$(BIN) local start
	$(BIN) init -s $(DEMO_SCALE)
	$(BIN) local status

vet:
	$(GO) vet ./...

# Everything: vet, unit tests, integration tests against throwaway clusters, fuzz seed corpora.
test: postgres vet
	$(GO) test -race -timeout 15m ./...

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
