package pgbenchfmt

import (
	"fmt"

	"github.com/pgtrial/pgtrial/internal/cnum"
)

// pgbench reads numbers with the C library (strtol, atof, atoi) and with PostgreSQL's
// option_parse_int. The functions here reproduce what those accept, including their
// leniencies (leading blanks, trailing garbage for atof/atoi, "" as 0), because what a
// command line means must not change between pgbench and pgtrial.

// optionParseInt is PostgreSQL's option_parse_int (fe_utils/option_utils.c): strtol
// into an int, trailing blanks allowed, anything else after the number is invalid, and
// the value must be in [min, max]. It returns pgbench's error text.
func optionParseInt(arg, optname string, min, max int) (int, error) {
	v, end, overflow := cnum.Strtol(arg)
	for end < len(arg) && cnum.IsSpace(arg[end]) {
		end++
	}
	if end != len(arg) {
		return 0, fmt.Errorf("invalid value \"%s\" for option %s", arg, optname)
	}
	// strtoint: a long that does not fit an int is ERANGE.
	if overflow || v != int64(int32(v)) || v < int64(min) || v > int64(max) {
		return 0, fmt.Errorf("%s must be in range %d..%d", optname, min, max)
	}
	return int(v), nil
}
