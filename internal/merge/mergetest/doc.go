// Package mergetest tests `pgtrial merge` end to end (a package of its
// own: it runs for about a minute): four `run --segment i/4` processes
// with one --start-at against the test cluster, merged, checked against
// the union of their transaction logs; and one generator against four
// merged segments, three runs a side, with `pgtrial compare`.
package mergetest
