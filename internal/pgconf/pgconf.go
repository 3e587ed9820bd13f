// Package pgconf renders server settings as SQL for ALTER SYSTEM: setting
// names quoted part by part, values as escape-string literals, list
// settings (GUC_LIST_QUOTE) one literal per element. localpg (the local
// cluster's "pgtrial local set") and serverctl (an experiment's variants)
// both write settings with it.
package pgconf

import (
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// listQuoteSettings are the settings whose values are lists of identifiers
// (GUC_LIST_QUOTE in the server): ALTER SYSTEM needs each element as its own literal,
// because one literal 'a,b' would be a single element named "a,b".
var listQuoteSettings = map[string]bool{
	"search_path":               true,
	"shared_preload_libraries":  true,
	"session_preload_libraries": true,
	"local_preload_libraries":   true,
	"temp_tablespaces":          true,
	"unix_socket_directories":   true,
}

// QuoteLiteral quotes s as an escape-string literal, E'…', with ' and \ doubled; this
// reads the same whatever standard_conforming_strings is.
func QuoteLiteral(s string) string {
	s = strings.ReplaceAll(s, `\`, `\\`)
	return "E'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// ValueSQL renders the right-hand side of ALTER SYSTEM SET name = … : one literal, or
// for a list setting one literal per element. An empty list can be written only from
// PostgreSQL 19 on (SET … TO NULL); before, an empty literal is a list of one empty name
// (written as '""'), which keeps a server with an empty preload list from starting,
// so it is an error.
func ValueSQL(name, value string, pgMajor int) (string, error) {
	if !listQuoteSettings[name] {
		return QuoteLiteral(value), nil
	}
	elems, err := SplitList(value)
	if err != nil {
		return "", fmt.Errorf("setting %s = %q: %w", name, value, err)
	}
	if len(elems) == 0 {
		if pgMajor >= 19 {
			return "NULL", nil
		}
		return "", fmt.Errorf("setting %s: ALTER SYSTEM cannot write an empty list before PostgreSQL 19 "+
			"(it would write one empty name, which the server rejects); give at least one element", name)
	}
	for i, e := range elems {
		elems[i] = QuoteLiteral(e)
	}
	return strings.Join(elems, ", "), nil
}

// SplitList splits a list value the way the server writes it into
// postgresql.auto.conf: elements separated by commas, surrounding blanks dropped, an
// element in double quotes taken literally (with "" for a quote), so that
// `pg_stat_statements, "my,lib"` is two elements. Empty unquoted elements are skipped.
func SplitList(value string) ([]string, error) {
	var elems []string
	rest := value
	for {
		rest = strings.TrimLeft(rest, " \t\n\r")
		if rest == "" {
			return elems, nil
		}
		var elem string
		if rest[0] == '"' {
			var b strings.Builder
			i := 1
			for {
				j := strings.IndexByte(rest[i:], '"')
				if j < 0 {
					return nil, fmt.Errorf("unterminated double quote in %q", value)
				}
				b.WriteString(rest[i : i+j])
				i += j + 1
				if i < len(rest) && rest[i] == '"' { // "" is a quote inside
					b.WriteByte('"')
					i++
					continue
				}
				break
			}
			elem = b.String()
			if elem == "" {
				return nil, fmt.Errorf("empty quoted name \"\" in %q", value)
			}
			rest = strings.TrimLeft(rest[i:], " \t\n\r")
			if rest != "" && rest[0] != ',' {
				return nil, fmt.Errorf("text after a quoted name in %q: want a comma", value)
			}
			elems = append(elems, elem)
		} else {
			j := strings.IndexByte(rest, ',')
			if j < 0 {
				j = len(rest)
			}
			if elem = strings.TrimSpace(rest[:j]); elem != "" {
				elems = append(elems, elem)
			}
			rest = rest[j:]
		}
		if rest != "" { // at a comma
			rest = rest[1:]
		}
	}
}

// NameSQL quotes a (validated) setting name, part by part: work_mem,
// "pg_stat_statements"."max".
func NameSQL(name string) string {
	return pgx.Identifier(strings.Split(name, ".")).Sanitize()
}
