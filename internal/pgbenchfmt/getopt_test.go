package pgbenchfmt

import (
	"strings"
	"testing"
)

// scan runs getopt over args with pgbench's tables and renders what it sees:
// options as "x" or "x=arg" (long-only options by name), operands as "[op]",
// and an error as "!message".
func scan(args []string, posixly bool) []string {
	g := newGetopt(args, optString, longOptions, posixly)
	var out []string
	for {
		ev, ok, err := g.nextOption()
		if err != nil {
			return append(out, "!"+err.Error())
		}
		if !ok {
			break
		}
		name := string(rune(ev.code))
		if ev.code > 255 {
			for _, lo := range longOptions {
				if lo.code == ev.code {
					name = lo.name
				}
			}
		}
		if ev.arg != "" || optTakesArg(ev.code) {
			name += "=" + ev.arg
		}
		out = append(out, name)
	}
	for _, op := range g.operands {
		out = append(out, "["+op+"]")
	}
	return out
}

func optTakesArg(code int) bool {
	for _, lo := range longOptions {
		if lo.code == code {
			return lo.arg == requiredArgument
		}
	}
	return false
}

func TestGetopt(t *testing.T) {
	tests := []struct {
		args    string // split on spaces; "''" is an empty argument
		posixly bool
		want    string // scan output joined by spaces
	}{
		{args: "-n -S", want: "n S"},
		{args: "-nS", want: "n S"},
		{args: "-c4", want: "c=4"},
		{args: "-c 4", want: "c=4"},
		{args: "-nc4", want: "n c=4"},
		{args: "-nc 4", want: "n c=4"},
		{args: "-c -4", want: "c=-4"},
		{args: "-c --", want: "c=--"},
		{args: "-c ''", want: "c="},
		{args: "-Dfoo=bar", want: "D=foo=bar"},
		{args: "--client=4", want: "c=4"},
		{args: "--client 4", want: "c=4"},
		{args: "--client=", want: "c="},
		{args: "--client= -t", want: "c= !option requires an argument -- 't'"},
		{args: "--cli=4", want: "c=4"},
		{args: "--log", want: "l"},
		{args: "--log-p=x", want: "log-prefix=x"},
		{args: "--progress 5", want: "P=5"},
		{args: "--progress-t", want: "progress-timestamp"},
		{args: "--debug", want: "debug"},
		{args: "--continue-on-error", want: "continue-on-error"},
		{args: "--exit", want: "exit-on-abort"},
		{args: "db -n", want: "n [db]"},
		{args: "a -c 3 b -S c", want: "c=3 S [a] [b] [c]"},
		{args: "a -- -c 3", want: "[a] [-c] [3]"},
		{args: "-- -x", want: "[-x]"},
		{args: "- -n", want: "n [-]"},
		{args: "a -n b", posixly: true, want: "[a] [-n] [b]"},
		{args: "-n a -S", posixly: true, want: "n [a] [-S]"},
		// Errors, worded as glibc's getopt_long.
		{args: "-x", want: "!invalid option -- 'x'"},
		{args: "-nx", want: "n !invalid option -- 'x'"},
		{args: "-:", want: "!invalid option -- ':'"},
		{args: "-?", want: "!invalid option -- '?'"},
		{args: "-V", want: "!invalid option -- 'V'"},
		{args: "-c", want: "!option requires an argument -- 'c'"},
		{args: "-nc", want: "n !option requires an argument -- 'c'"},
		{args: "---debug", want: "!unrecognized option '---debug'"},
		{args: "--bad-option", want: "!unrecognized option '--bad-option'"},
		{args: "--bad=3", want: "!unrecognized option '--bad=3'"},
		{args: "--client", want: "!option '--client' requires an argument"},
		{args: "--cli", want: "!option '--client' requires an argument"},
		{args: "--connect=3", want: "!option '--connect' doesn't allow an argument"},
		{args: "--conn=3", want: "!option '--connect' doesn't allow an argument"},
		{args: "--pro 1", want: "!option '--pro' is ambiguous; possibilities: '--progress' '--protocol' '--progress-timestamp'"},
		{args: "--pro=1", want: "!option '--pro=1' is ambiguous; possibilities: '--progress' '--protocol' '--progress-timestamp'"},
		{args: "--s", want: "!option '--s' is ambiguous; possibilities: '--scale' '--select-only' '--skip-some-updates' '--sampling-rate' '--show-script'"},
		{args: "--help", want: "!unrecognized option '--help'"},
	}
	for _, tt := range tests {
		var args []string
		for _, a := range strings.Split(tt.args, " ") {
			if a == "''" {
				a = ""
			}
			args = append(args, a)
		}
		got := strings.Join(scan(args, tt.posixly), " ")
		if got != tt.want {
			t.Errorf("getopt(%q, posixly=%v) = %q, want %q", args, tt.posixly, got, tt.want)
		}
	}
}

// Every long option maps to a short letter of the option string or to a long-only
// code with a handler; the table has no duplicates.
func TestLongOptionTable(t *testing.T) {
	seen := map[string]bool{}
	codes := map[int]bool{}
	for _, lo := range longOptions {
		if seen[lo.name] || codes[lo.code] {
			t.Errorf("duplicate long option %q or code %d", lo.name, lo.code)
		}
		seen[lo.name], codes[lo.code] = true, true
		if lo.code < 256 {
			i := strings.IndexByte(optString, byte(lo.code))
			if i < 0 {
				t.Errorf("--%s: -%c is not in the option string", lo.name, lo.code)
				continue
			}
			takesArg := i+1 < len(optString) && optString[i+1] == ':'
			if takesArg != (lo.arg == requiredArgument) {
				t.Errorf("--%s and -%c disagree on taking an argument", lo.name, lo.code)
			}
		}
	}
	// Every letter of the option string has a long name, as in pgbench.
	for i := 0; i < len(optString); i++ {
		c := optString[i]
		if c == ':' {
			continue
		}
		if !codes[int(c)] {
			t.Errorf("-%c has no long option", c)
		}
	}
	if len(longOptions) != 51 {
		t.Errorf("%d long options, want pgbench 18's 44 plus --continue-on-error, --percentiles, --run-dir, --metrics-addr, --metrics-allow-remote, --segment and --start-at", len(longOptions))
	}
}
