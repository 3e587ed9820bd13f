package experiment

import (
	"fmt"

	"github.com/pgtrial/pgtrial/internal/localpg"
)

// checkLocalListen refuses, before anything is changed, a variant that sets
// where the server listens (listen_addresses, port, unix_socket_directories)
// when the target turned out to be the local cluster (env.LocalCluster):
// the file's check catches the files that name it or give no target.url,
// this catches the rest (a spec built in code, a target resolved to the
// local cluster some other way). The cluster would stay on loopback anyway
// (localpg puts these on the server's command line); the error says so at
// the setting's line instead of leaving a value that never takes effect.
func checkLocalListen(s *Spec, env Env) error {
	if !env.LocalCluster {
		return nil
	}
	for vi, v := range s.Variants {
		for _, st := range v.Settings {
			if localpg.IsManagedSetting(st.Name) {
				return fmt.Errorf("%s:%d:%d: variants[%d].settings.%s: %s", s.File, st.Pos.Line, st.Pos.Column, vi, st.Name,
					localManagedProblem(st.Name, true))
			}
		}
	}
	return nil
}
