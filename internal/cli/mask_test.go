package cli

import (
	"os"
	"strings"
	"testing"

	"github.com/pgtrial/pgtrial/internal/pgtest"
)

// pgtrial mask refuses an unmarked database without --i-am-on-a-clone (exit 1, the
// flag named), masks with it, prints the counts, the proof and the warning to drop the
// clone, and never prints the key.
func TestMaskCommand(t *testing.T) {
	url := pgtest.ConnString(t)
	var avail bool
	pgtest.QueryRow(t, url, "select exists (select 1 from pg_available_extensions where name = 'pgcrypto')", nil, &avail)
	if !avail {
		if os.Getenv("CI") == "true" {
			t.Fatal("pgcrypto is not installed with the test server (install postgresql-contrib)")
		}
		t.Skip("pgcrypto is not installed with the test server: install postgresql-contrib")
	}
	pgtest.Exec(t, url, `create table users (id int primary key, email text)`,
		`insert into users select i, 'user' || i || '@example.com' from generate_series(1, 300) i`)
	const key = "cli-test-key-of-more-than-16-bytes"
	t.Setenv("PGTRIAL_TEST_MASK_KEY", key)
	args := []string{"mask", url, "--column", "users.email", "--key-env", "PGTRIAL_TEST_MASK_KEY", "--prove", "50"}

	code, out, errOut := runCLI(t, args...)
	if code != 1 || !strings.Contains(errOut, "--i-am-on-a-clone") {
		t.Fatalf("unmarked database: exit %d\n%s%s; want 1 and the flag named", code, out, errOut)
	}
	if strings.Contains(out+errOut, key) {
		t.Errorf("the key is in the output:\n%s%s", out, errOut)
	}

	code, out, errOut = runCLI(t, append(args, "--i-am-on-a-clone")...)
	for _, want := range []string{"distinct 300 before, 300 after", "proof: 0 of 50 sampled originals found in the dump", "then drop the clone"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("with --i-am-on-a-clone: exit %d, want 0 and %q in\n%s%s", code, want, out, errOut)
		}
	}
	if strings.Contains(out+errOut, key) {
		t.Errorf("the key is in the output:\n%s%s", out, errOut)
	}

	if code, _, errOut := runCLI(t, "mask", url, "--column", "users.email", "--key-env", "PGTRIAL_TEST_MASK_KEY_UNSET"); code != 1 || !strings.Contains(errOut, "not set") {
		t.Errorf("unset key variable: exit %d, %q", code, errOut)
	}
}
