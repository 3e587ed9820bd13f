# pgtrial: the two commands of the README's quick start are `make demo` and `make test`.
# Both install PostgreSQL first when it is missing (as root, with apt-get).

GO       ?= go
BIN      := bin/pgtrial
COMMIT   := $(shell git rev-parse --short=12 HEAD 2>/dev/null)
LDFLAGS  := -X main.commit=$(COMMIT)
DEMO_SCALE ?= 10

.PHONY: all build demo test vet postgres clean

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

clean:
	rm -rf bin
