// Command pgtrial is a load-testing and performance-analysis tool for PostgreSQL.
package main

import (
	"os"

	"github.com/pgtrial/pgtrial/internal/cli"
)

// Set at build time with -ldflags "-X main.version=… -X main.commit=…".
var (
	version = "dev"
	commit  = ""
)

func main() {
	os.Exit(cli.Main(os.Args[1:], cli.BuildInfo{Version: version, Commit: commit}))
}
