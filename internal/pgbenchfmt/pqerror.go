package pgbenchfmt

import "github.com/pgtrial/pgtrial/internal/pgerr"

// PQErrorMessage is libpq's PQerrorMessage text for err, with the trailing
// newline, as pgbench prints it (pgerr.Libpq, the one place of libpq's
// wording); "" for a nil error.
func PQErrorMessage(err error) string { return pgerr.Libpq(err) }

// PQErrorMessageQuery is PQErrorMessage for an error of query, the text
// libpq sent, for its "LINE n: …" display (pgerr.LibpqQuery).
func PQErrorMessageQuery(err error, query string) string { return pgerr.LibpqQuery(err, query) }
