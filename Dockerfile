# pgtrial's image for Kubernetes (pgtrial k8s job; docs/kubernetes.md): a static
# binary on distroless, run as its nonroot user (65532), pgtrial the entrypoint.
#
#   docker build --build-arg VERSION=$(git describe --tags --always) \
#     --build-arg COMMIT=$(git rev-parse HEAD) -t registry.example.com/pgtrial:v1 .

FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
ARG COMMIT=
# CGO_ENABLED=0: a static binary, which distroless/static needs (no libc).
RUN CGO_ENABLED=0 go build -trimpath \
      -ldflags "-s -w -X main.version=${VERSION} -X main.commit=${COMMIT}" \
      -o /out/pgtrial ./cmd/pgtrial

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/pgtrial /pgtrial
USER 65532:65532
ENTRYPOINT ["/pgtrial"]
