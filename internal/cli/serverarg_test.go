package cli

import "testing"

func TestServerArg(t *testing.T) {
	if got, err := serverArg(nil, "postgres://x"); got != "" || err != nil {
		t.Errorf("no argument: %q, %v", got, err)
	}
	if got, err := serverArg([]string{"db1"}, ""); got != "db1" || err != nil {
		t.Errorf("argument: %q, %v", got, err)
	}
	if _, err := serverArg([]string{"db1"}, "db2"); err == nil || err.Error() != "give the server either as an argument or with --url, not both" {
		t.Errorf("both: %v", err)
	}
}
