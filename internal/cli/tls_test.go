package cli

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"io/fs"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/pgtest"
)

// testCA is a certificate authority made by a test.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pem  []byte
}

func newTestCA(t *testing.T, name string) testCA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: name},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return testCA{cert: cert, key: key, pem: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}
}

// issue makes a server certificate for the DNS names and IP addresses in
// names, signed by ca; it returns the certificate and the key in PEM.
func (ca testCA) issue(t *testing.T, names ...string) (certPEM, keyPEM []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()),
		Subject:      pkix.Name{CommonName: names[0]},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	for _, n := range names {
		if ip := net.ParseIP(n); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, n)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kder})
}

// scramVerifier is what PostgreSQL stores for a scram-sha-256 password
// (RFC 5802, RFC 7677): SCRAM-SHA-256$ITER:SALT$STOREDKEY:SERVERKEY, so
// that the password itself is never sent to the server, where it could
// reach a log or pg_stat_statements.
func scramVerifier(t *testing.T, password string) string {
	t.Helper()
	salt := make([]byte, 16)
	rand.Read(salt)
	const iter = 4096
	salted, err := pbkdf2.Key(sha256.New, password, salt, iter, 32)
	if err != nil {
		t.Fatal(err)
	}
	mac := func(msg string) []byte {
		h := hmac.New(sha256.New, salted)
		h.Write([]byte(msg))
		return h.Sum(nil)
	}
	stored := sha256.Sum256(mac("Client Key"))
	b64 := base64.StdEncoding.EncodeToString
	return fmt.Sprintf("SCRAM-SHA-256$%d:%s$%s:%s", iter, b64(salt), b64(stored[:]), b64(mac("Server Key")))
}

// tlsHBA: the superuser by TLS without a password (and without TLS for
// pgtest's and localpg's own connections), the role "bench" only with
// scram-sha-256.
const tlsHBA = `local   all  all                    trust
hostssl all  bench     127.0.0.1/32  scram-sha-256
host    all  bench     127.0.0.1/32  reject
host    all  postgres  127.0.0.1/32  trust
`

// benchPassword is the role bench's password in TestTLSAndSCRAM.
const benchPassword = "Tls-scram-pw-7e3f"

// runOutcome is one `pgtrial run` of TestTLSAndSCRAM.
type runOutcome struct {
	code           int
	stdout, stderr string
	dir            string
}

// TestTLSAndSCRAM: a server of the test's own with a certificate from a CA
// the test made. pgtrial run with sslmode=verify-full succeeds with the CA
// as sslrootcert (by name and by address: the certificate has both), and
// fails with a message naming the certificate without the CA, with another
// CA, and when the certificate is for another host name. The role bench
// authenticates with scram-sha-256 with its password from PGPASSWORD,
// ~/.pgpass (HOME's) and PGPASSFILE; the password is in no file of the run
// directories and in none of the output.
func TestTLSAndSCRAM(t *testing.T) {
	ca := newTestCA(t, "pgtrial test CA")
	good, goodKey := ca.issue(t, "localhost", "127.0.0.1")
	wrong, wrongKey := ca.issue(t, "db.invalid")
	c := pgtest.OwnCluster(t, pgtest.Own{
		Settings: map[string]string{
			"ssl": "on", "ssl_cert_file": "server.crt", "ssl_key_file": "server.key",
			"password_encryption": "scram-sha-256",
		},
		Files: map[string][]byte{
			"server.crt": good, "server.key": goodKey, "wrong.crt": wrong, "wrong.key": wrongKey,
			"pg_hba.conf": []byte(tlsHBA),
		},
	})
	admin := c.URL("")
	pgtest.Exec(t, admin,
		"CREATE ROLE bench LOGIN PASSWORD '"+scramVerifier(t, benchPassword)+"'",
		"GRANT pg_monitor TO bench")

	tmp := t.TempDir()
	caFile := filepath.Join(tmp, "ca.crt")
	otherCA := filepath.Join(tmp, "other-ca.crt")
	script := filepath.Join(tmp, "one.sql")
	for path, data := range map[string][]byte{caFile: ca.pem, otherCA: newTestCA(t, "another CA").pem, script: []byte("SELECT 1;\n")} {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	emptyHome := t.TempDir() // no ~/.pgpass, no ~/.postgresql/root.crt
	// The libpq environment as these runs see it: only what a case sets.
	clearEnv := func(t *testing.T) {
		for _, n := range []string{"PGHOST", "PGHOSTADDR", "PGPORT", "PGDATABASE", "PGUSER", "PGPASSWORD", "PGPASSFILE",
			"PGSERVICE", "PGSERVICEFILE", "PGSSLMODE", "PGSSLROOTCERT", "PGSSLCERT", "PGSSLKEY", "PGTARGETSESSIONATTRS"} {
			t.Setenv(n, "")
		}
		t.Setenv("HOME", emptyHome)
	}
	n := 0
	url := func(user, host, query string) string {
		return fmt.Sprintf("postgres://%s@%s:%d/postgres?%s", user, host, c.Port(), query)
	}
	run := func(t *testing.T, target string) runOutcome {
		t.Helper()
		n++
		dir := filepath.Join(tmp, fmt.Sprintf("run%d", n))
		code, out, errOut := runCLI(t, "run", target, "-f", script, "--rate", "20", "-T", "1s", "--warmup", "0s", "-c", "1",
			"--quiet", "--run-dir", dir)
		return runOutcome{code, out, errOut, dir}
	}
	ok := func(t *testing.T, target string) runOutcome {
		t.Helper()
		r := run(t, target)
		if r.code != 0 {
			t.Fatalf("pgtrial run %s: exit %d\nstdout:\n%s\nstderr:\n%s", target, r.code, r.stdout, r.stderr)
		}
		checkNoSecret(t, r, benchPassword)
		return r
	}
	// fails: the run is refused, with a message holding every one of words
	// (lower case), logged so that the report can quote it.
	fails := func(t *testing.T, target string, words ...string) {
		t.Helper()
		r := run(t, target)
		if r.code == 0 {
			t.Fatalf("pgtrial run %s succeeded\nstdout:\n%s", target, r.stdout)
		}
		msg := strings.ToLower(r.stderr)
		for _, w := range words {
			if !strings.Contains(msg, w) {
				t.Errorf("the error lacks %q:\n%s", w, r.stderr)
			}
		}
		checkNoSecret(t, r, benchPassword)
		t.Logf("message: %s", strings.TrimSpace(r.stderr))
	}

	t.Run("verify-full with the CA", func(t *testing.T) {
		clearEnv(t)
		for _, host := range []string{"127.0.0.1", "localhost"} {
			r := ok(t, url("postgres", host, "sslmode=verify-full&sslrootcert="+caFile))
			if !strings.Contains(r.stdout, "committed") {
				t.Errorf("host %s: no summary:\n%s", host, r.stdout)
			}
		}
	})
	t.Run("verify-full without the CA", func(t *testing.T) {
		clearEnv(t)
		fails(t, url("postgres", "127.0.0.1", "sslmode=verify-full"), "certificate")
		fails(t, url("postgres", "127.0.0.1", "sslmode=verify-full&sslrootcert="+otherCA), "certificate")
	})
	t.Run("scram-sha-256 with PGPASSWORD", func(t *testing.T) {
		clearEnv(t)
		t.Setenv("PGPASSWORD", benchPassword)
		ok(t, url("bench", "127.0.0.1", "sslmode=verify-full&sslrootcert="+caFile))
	})
	t.Run("scram-sha-256 with ~/.pgpass", func(t *testing.T) {
		clearEnv(t)
		home := t.TempDir()
		writePassfile(t, filepath.Join(home, ".pgpass"), c.Port())
		t.Setenv("HOME", home)
		ok(t, url("bench", "127.0.0.1", "sslmode=verify-full&sslrootcert="+caFile))
	})
	t.Run("scram-sha-256 with PGPASSFILE", func(t *testing.T) {
		clearEnv(t)
		file := filepath.Join(t.TempDir(), "passwords")
		writePassfile(t, file, c.Port())
		t.Setenv("PGPASSFILE", file)
		ok(t, url("bench", "127.0.0.1", "sslmode=verify-full&sslrootcert="+caFile))
	})
	t.Run("scram-sha-256 without a password", func(t *testing.T) {
		clearEnv(t)
		fails(t, url("bench", "127.0.0.1", "sslmode=verify-full&sslrootcert="+caFile), "password")
	})
	t.Run("scram-sha-256 with a wrong password", func(t *testing.T) {
		clearEnv(t)
		t.Setenv("PGPASSWORD", "not-"+benchPassword)
		fails(t, url("bench", "127.0.0.1", "sslmode=verify-full&sslrootcert="+caFile), "password")
	})
	t.Run("verify-full with the wrong host name", func(t *testing.T) {
		clearEnv(t)
		// The server's certificate is now for db.invalid only (a reload
		// takes a new certificate for new connections).
		pgtest.Exec(t, admin, "ALTER SYSTEM SET ssl_cert_file = 'wrong.crt'", "ALTER SYSTEM SET ssl_key_file = 'wrong.key'", "SELECT pg_reload_conf()")
		deadline := time.Now().Add(10 * time.Second)
		for {
			var f string
			pgtest.QueryRow(t, admin, "SELECT current_setting('ssl_cert_file')", nil, &f)
			if f == "wrong.crt" || time.Now().After(deadline) {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		fails(t, url("postgres", "localhost", "sslmode=verify-full&sslrootcert="+caFile), "certificate", "localhost")
		fails(t, url("postgres", "127.0.0.1", "sslmode=verify-full&sslrootcert="+caFile), "certificate", "127.0.0.1")
	})
}

// writePassfile writes a password file for the role bench on
// 127.0.0.1:port, mode 0600 (libpq ignores a file others can read).
func writePassfile(t *testing.T, path string, port int) {
	t.Helper()
	line := fmt.Sprintf("127.0.0.1:%d:*:bench:%s\n", port, benchPassword)
	if err := os.WriteFile(path, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
}

// checkNoSecret: secret is in none of the output and in no file of the run
// directory (when there is one).
func checkNoSecret(t *testing.T, r runOutcome, secret string) {
	t.Helper()
	if strings.Contains(r.stdout+r.stderr, secret) {
		t.Errorf("the password is in the output:\n%s\n%s", r.stdout, r.stderr)
	}
	files := 0
	err := filepath.WalkDir(r.dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		files++
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if bytes.Contains(data, []byte(secret)) {
			t.Errorf("the password is in %s", path)
		}
		return nil
	})
	if err != nil && !os.IsNotExist(err) {
		t.Error(err)
	}
	if r.code == 0 && files == 0 {
		t.Errorf("no files in the run directory %s", r.dir)
	}
}
