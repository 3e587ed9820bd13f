package experiment

import (
	"strings"
	"testing"
)

// TestLocalListenSettingsRefused: a variant may not set listen_addresses,
// port or unix_socket_directories when the target is the local cluster
// (named, or the default without target.url): a located error at --check
// time (defect 6 of issue 14: listen_addresses: "*" passed the check). A
// server of one's own (target.url) may set them.
func TestLocalListenSettingsRefused(t *testing.T) {
	for _, tt := range []struct {
		name, file, want string
	}{
		{"local true", "target: {local: true}\nload: {rate: 10}\nvariants:\n  - name: open\n    settings:\n      work_mem: 64MB\n      listen_addresses: \"*\"\n",
			`x.yaml:7:7: variants[0].settings.listen_addresses: listen_addresses says where the server listens, and the target is the local cluster, which pgtrial keeps on 127.0.0.1`},
		{"a named cluster, any case", "target: {local: bench}\nload: {rate: 10}\nvariants:\n  - name: a\n  - name: b\n    settings: {Port: 5433}\n",
			`x.yaml:6:16: variants[1].settings.Port: port says where the server listens, and the target is the local cluster, which`},
		{"no target", "load: {rate: 10}\nvariants:\n  - name: a\n    settings:\n      unix_socket_directories: /tmp\n",
			`x.yaml:5:7: variants[0].settings.unix_socket_directories: unix_socket_directories says where the server listens, and the target is the local cluster (no target.url; a server from the libpq environment could not be restarted for it either)`},
		{"through a merge key", "base: &b {listen_addresses: '0.0.0.0'}\nload: {rate: 10}\nvariants:\n  - name: a\n    settings:\n      <<: *b\n",
			`x.yaml:1:11: variants[0].settings.listen_addresses: listen_addresses says where the server listens`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("x.yaml", []byte(tt.file))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error:\n%v\nwant it to contain:\n%s", err, tt.want)
			}
			if !strings.Contains(err.Error(), "target.url") {
				t.Errorf("the error does not say what to do instead: %v", err)
			}
		})
	}
	remote := "target: {url: 'postgres://u@db1/bench', restart_command: 'true'}\nload: {rate: 10}\nvariants:\n  - name: a\n    settings: {listen_addresses: '*', port: 5433}\n"
	if _, err := Parse("x.yaml", []byte(remote)); err != nil {
		t.Errorf("a server of one's own: %v", err)
	}
}

// TestLocalListenSettingsAtRunTime: a spec whose target turns out to be the
// local cluster is refused before anything is changed, at the setting.
func TestLocalListenSettingsAtRunTime(t *testing.T) {
	s := &Spec{File: "x.yaml", Variants: []Variant{
		{Name: "a", Settings: []Setting{{Name: "work_mem", Value: "4MB", Pos: Pos{3, 5}}}},
		{Name: "b", Settings: []Setting{{Name: "listen_addresses", Value: "*", Pos: Pos{7, 7}}}},
	}}
	if err := checkLocalListen(s, Env{}); err != nil {
		t.Errorf("a server that is not the local cluster: %v", err)
	}
	err := checkLocalListen(s, Env{LocalCluster: true})
	if err == nil || !strings.HasPrefix(err.Error(), "x.yaml:7:7: variants[1].settings.listen_addresses: listen_addresses says where the server listens") {
		t.Errorf("the local cluster: %v", err)
	}
}
