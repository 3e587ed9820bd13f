package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/pgtrial/pgtrial/internal/workload"
)

// showScript prints a built-in mix's scripts (each headed by "-- mix/type:
// desc, weight W") or a built-in pgbench script ("-- name: desc", as
// pgbench's --show-script), exactly the text -b runs, so that a user can
// copy it into a file, edit it and run it with -f FILE@WEIGHT.
func showScript(w io.Writer, name string) error {
	if m, ok := workload.FindMix(name); ok {
		for i, s := range m.Scripts {
			if i > 0 {
				fmt.Fprintln(w)
			}
			fmt.Fprintf(w, "-- %s/%s: %s, weight %d\n%s", m.Name, s.Name, s.Desc, s.Weight, s.Script)
			if !strings.HasSuffix(s.Script, "\n") {
				fmt.Fprintln(w)
			}
		}
		return nil
	}
	bi, n := workload.FindBuiltin(name)
	if n != 1 {
		names := workload.BuiltinNames()
		for _, m := range workload.Mixes() {
			names = append(names, m.Name)
		}
		return fmt.Errorf("--show-script %q: %s; choose one of %s", name, workload.NotOneBuiltin(n), strings.Join(names, ", "))
	}
	fmt.Fprintf(w, "-- %s: %s\n%s", bi.Name, bi.Desc, bi.Script)
	return nil
}
